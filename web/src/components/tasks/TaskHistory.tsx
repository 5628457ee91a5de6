// A task's history (`/tasks/ID/history`): its versions (number, who, when, why, the note), two of
// them picked (`?from=&to=`, by default the newest and the one before) and their structural diff —
// the record's changed fields old → new, the steps added, removed, moved and changed (each changed
// parameter old → new) at their paths — and Restore, which saves a version again as the newest
// (asked first) and shows the restored task in the editor.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../../api";
import { dateTime } from "../../format";
import { navigate, useSearch } from "../../router";
import type { TaskDetail } from "../../types";
import { shown, type FieldChange, type StepChange, type TaskVersion, type VersionDiff } from "../../task-versions";
import { ErrorBanner } from "../FormFields";

/** How many versions a page shows (more on request). */
const PAGE = 100;

/** The two versions the URL picks, or the newest and the one before. */
function picked(search: string, newest: number): { from: number; to: number } {
  const q = new URLSearchParams(search);
  const num = (k: string) => {
    const n = Number(q.get(k));
    return Number.isInteger(n) && n >= 1 && n <= newest ? n : null;
  };
  const to = num("to") ?? newest;
  return { from: num("from") ?? Math.max(1, to - 1), to };
}

/** The tab. */
export function TaskHistory({ task, onRestored }: { task: TaskDetail; onRestored: (t: TaskDetail) => void }) {
  const search = useSearch();
  const [versions, setVersions] = useState<TaskVersion[] | null>(null);
  const [total, setTotal] = useState(0);
  const [limit, setLimit] = useState(PAGE);
  const [diff, setDiff] = useState<VersionDiff | null>(null);
  const [error, setError] = useState("");
  const base = `/tasks/${encodeURIComponent(task.id)}`;

  useEffect(() => {
    api.taskVersions(task.id, limit).then(
      (p) => {
        setVersions(p.items);
        setTotal(p.total);
      },
      (e) => setError(errorText(e)),
    );
  }, [task.id, task.version, limit]);

  const newest = versions?.[0]?.version ?? 0;
  const { from, to } = picked(search, newest);
  useEffect(() => {
    if (!newest || from === to) return setDiff(null);
    api.taskVersionDiff(task.id, from, to).then(setDiff, (e) => setError(errorText(e)));
  }, [task.id, from, to, newest]);

  const pick = (f: number, t: number) => navigate(`${base}/history?from=${f}&to=${t}`, { replace: true });
  const restore = async (v: TaskVersion) => {
    if (!window.confirm(`Restore version ${v.version} of “${task.name}”? It is saved again as the newest version (its steps, folder and tags); the versions in between stay in the history.`)) return;
    try {
      const t = await api.restoreTaskVersion(task.id, v.version);
      onRestored(t);
      navigate(`${base}/edit`);
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div class="task-history" data-testid="task-history">
      <ErrorBanner message={error} onDismiss={() => setError("")} />
      {versions && (
        <table class="table history-versions table-cards">
          <thead>
            <tr>
              <th>Version</th>
              <th>Saved</th>
              <th>By</th>
              <th>Why</th>
              <th>Note</th>
              <th>
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.version} id={`v${v.version}`} class={v.version === from || v.version === to ? "version-on" : ""} data-testid="version-row" data-version={v.version}>
                <td class="card-title">
                  <strong>v{v.version}</strong>
                  {v.version === newest && <span class="muted small"> (current)</span>}
                </td>
                <td class="small" data-label="Saved">
                  {dateTime(v.saved_at)}
                </td>
                <td class="small" data-label="By">
                  {v.author}
                </td>
                <td class="small" data-label="Why">
                  {v.cause}
                </td>
                <td class="small" data-label="Note" data-testid="version-note">
                  {v.note || <span class="muted">—</span>}
                </td>
                <td class="row-actions">
                  {v.version !== newest && (
                    <button class="btn btn-ghost btn-small" onClick={() => pick(v.version, newest)} aria-label={`Compare version ${v.version} with the current one`}>
                      Compare
                    </button>
                  )}
                  {v.version !== newest && (
                    <button class="btn btn-small" onClick={() => void restore(v)} aria-label={`Restore version ${v.version}`} data-testid="restore-version">
                      Restore
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {versions && total > versions.length && (
        <button class="btn btn-ghost btn-small" onClick={() => setLimit(limit + PAGE)} data-testid="older-versions">
          Show {Math.min(PAGE, total - versions.length)} older versions
        </button>
      )}
      {versions && versions.length < 2 && <p class="muted">One version so far: each save adds one, to compare and restore here.</p>}
      {versions && versions.length >= 2 && (
        <>
          <div class="history-pick">
            <label class="small">
              Compare{" "}
              <VersionSelect versions={versions} value={from} onPick={(n) => pick(n, to)} testId="diff-from" />
            </label>
            <label class="small">
              with{" "}
              <VersionSelect versions={versions} value={to} onPick={(n) => pick(from, n)} testId="diff-to" />
            </label>
          </div>
          {from === to && <p class="muted">Pick two different versions.</p>}
          {diff && diff.from === from && diff.to === to && <DiffView diff={diff} />}
        </>
      )}
    </div>
  );
}

/** A select of the versions. */
function VersionSelect({ versions, value, onPick, testId }: { versions: TaskVersion[]; value: number; onPick: (n: number) => void; testId: string }) {
  return (
    <select value={value} onChange={(e) => onPick(Number((e.target as HTMLSelectElement).value))} data-testid={testId}>
      {versions.map((v) => (
        <option key={v.version} value={v.version}>
          {`v${v.version} · ${dateTime(v.saved_at)}${v.note ? ` · ${v.note}` : ""}`}
        </option>
      ))}
    </select>
  );
}

/** The diff: the record's fields, then the steps. */
function DiffView({ diff }: { diff: VersionDiff }) {
  if (!diff.fields.length && !diff.steps.length) return <p class="muted" data-testid="diff-none">No difference between v{diff.from} and v{diff.to}.</p>;
  return (
    <div class="history-diff" data-testid="version-diff">
      {diff.fields.length > 0 && (
        <>
          <h3>Fields</h3>
          <table class="table">
            <thead>
              <tr>
                <th>Field</th>
                <th>v{diff.from}</th>
                <th>v{diff.to}</th>
              </tr>
            </thead>
            <tbody>
              {diff.fields.map((f) => (
                <tr key={f.field} data-testid="diff-field">
                  <td class="mono small">{f.field}</td>
                  <td class="diff-old">{shown(f.old)}</td>
                  <td class="diff-new">{shown(f.new)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {diff.steps.length > 0 && (
        <>
          <h3>Steps</h3>
          <ul class="diff-steps">
            {diff.steps.map((s, i) => (
              <StepChangeView key={i} change={s} />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

const KIND_LABEL: Record<StepChange["kind"], string> = { added: "added", removed: "removed", moved: "moved", changed: "changed" };

/** One step's change. */
function StepChangeView({ change: s }: { change: StepChange }) {
  return (
    <li data-testid="diff-step" data-kind={s.kind} data-path={s.path}>
      <span class={`chip chip-diff-${s.kind}`}>{KIND_LABEL[s.kind] ?? s.kind}</span> <span class="mono small">{s.path}</span> <strong>{s.type}</strong>
      {s.kind === "moved" && s.old_path && <span class="small muted"> (was {s.old_path})</span>}
      {s.params && s.params.length > 0 && (
        <ul class="diff-params small">
          {s.params.map((p: FieldChange) => (
            <li key={p.field} data-testid="diff-param">
              <span class="mono">{p.field}</span>: <span class="diff-old">{shown(p.old)}</span> → <span class="diff-new">{shown(p.new)}</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
