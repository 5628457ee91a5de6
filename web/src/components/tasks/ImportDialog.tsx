// Importing an export document: choose the file → a dry run shows what would be created, the
// clashes (names taken here) with how to settle them (refuse, skip, replace, rename), every error at
// its place in the document and the secrets this server lacks → Import → the report. The server
// stores all the tasks or none: nothing is imported while the document has errors.
import { useState } from "preact/hooks";
import { api, errorText } from "../../api";
import type { ImportProblem, ImportReport, OnClash } from "../../task-versions";
import { FormError, Modal } from "../FormFields";

const CLASH_CHOICES: [OnClash, string][] = [
  ["fail", "refuse the import"],
  ["skip", "skip them (keep the stored tasks)"],
  ["replace", "replace them (a new version of each)"],
  ["rename", "import them renamed (“name (2)”)"],
];

/** The dialog; `onImported` after a real import stored something. */
export function ImportDialog({ onClose, onImported }: { onClose: () => void; onImported: () => void }) {
  const [text, setText] = useState<string | null>(null);
  const [file, setFile] = useState("");
  const [onClash, setOnClash] = useState<OnClash>("fail");
  const [report, setReport] = useState<ImportReport | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");

  const run = async (body: string, dryRun: boolean, clash: OnClash) => {
    setBusy(true);
    setError("");
    try {
      const r = await api.importTasks(body, dryRun, clash);
      setReport(r);
      if (!dryRun && !r.error) onImported();
    } catch (e) {
      setReport(null);
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const choose = async (f: File | undefined) => {
    if (!f) return;
    const body = await f.text();
    setFile(f.name);
    setText(body);
    await run(body, true, onClash);
  };
  const settle = (c: OnClash) => {
    setOnClash(c);
    if (text !== null) void run(text, true, c);
  };

  const done = report && !report.dry_run && !report.error;
  const blocked = !report || report.errors.length > 0 || (report.clashes.length > 0 && onClash === "fail");
  return (
    <Modal labelledBy="import-title" testId="import-dialog" wide onClose={onClose}>
      <h2 id="import-title">Import tasks</h2>
      <p class="muted small">A document exported from a deft server (“Export”). Every task is checked first; nothing is stored while any has an error.</p>
      {!done && (
        <label class="small">
          Document{" "}
          <input type="file" accept="application/json,.json" onChange={(e) => void choose((e.target as HTMLInputElement).files?.[0])} data-testid="import-file" />
        </label>
      )}
      <FormError error={error} testId="import-error" />
      {report && <ReportView report={report} file={file} />}
      {report && !done && report.clashes.length > 0 && (
        <fieldset class="import-clash" data-testid="import-clash">
          <legend>Tasks whose names exist here:</legend>
          {CLASH_CHOICES.map(([c, label]) => (
            <label key={c} class="check small">
              <input type="radio" name="on-clash" value={c} checked={onClash === c} disabled={busy} onChange={() => settle(c)} data-testid={`on-clash-${c}`} /> {label}
            </label>
          ))}
        </fieldset>
      )}
      <div class="dialog-buttons">
        <button type="button" class="btn" onClick={onClose} data-testid="import-close">
          {done ? "Close" : "Cancel"}
        </button>
        {!done && (
          <button type="button" class="btn btn-primary" disabled={busy || blocked || text === null} onClick={() => text !== null && void run(text, false, onClash)} data-testid="import-submit">
            {busy ? "Working…" : "Import"}
          </button>
        )}
      </div>
    </Modal>
  );
}

/** What the import would do (a dry run) or did. */
function ReportView({ report: r, file }: { report: ImportReport; file: string }) {
  const lines: [string, string[]][] = [
    [r.dry_run ? "Would create" : "Created", r.created],
    [r.dry_run ? "Would replace" : "Replaced", r.replaced],
    [r.dry_run ? "Would skip" : "Skipped", r.skipped],
    [r.dry_run ? "Would rename" : "Renamed", r.renamed.map((x) => `${x.from} → ${x.to}`)],
  ];
  return (
    <div class="import-report" data-testid={r.dry_run ? "import-preview" : "import-report"}>
      <p class="small">
        <strong>{r.dry_run ? `Checked ${file}` : "Imported."}</strong>
        {r.error && <span class="text-danger"> {r.error}</span>}
      </p>
      {lines
        .filter(([, names]) => names.length > 0)
        .map(([label, names]) => (
          <p key={label} class="small" data-testid="import-line">
            {label}: {names.join(", ")}
          </p>
        ))}
      <Problems title="Errors (nothing is imported until they are fixed)" items={r.errors} testId="import-errors" />
      <Problems title="Warnings" items={r.warnings} testId="import-warnings" />
    </div>
  );
}

/** Problems at their places in the document. */
function Problems({ title, items, testId }: { title: string; items: ImportProblem[]; testId: string }) {
  if (!items.length) return null;
  return (
    <div data-testid={testId}>
      <p class="small">{title}:</p>
      <ul class="import-problems small">
        {items.map((p, i) => (
          <li key={i}>
            <span class="mono">{p.path}</span>
            {p.task ? ` (${p.task})` : ""}: {p.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
