// How long the server keeps task runs and their images (docs/console-api.md "Retention"):
// runs days and images days (empty or 0: forever), each checked at its field, and what the
// daily pass last removed.
import { useEffect, useState } from "preact/hooks";
import { api, errorText, type Retention, type RetentionPass } from "../api";
import { useSubmit } from "../hooks/useSubmit";
import { FormError, SubmitButton } from "./FormFields";

/** A byte count as people read it: "52 MB", "3.4 kB", "0 B". */
export function byteSize(n: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let v = n;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u += 1;
  }
  return `${u === 0 || v >= 10 ? Math.round(v) : v.toFixed(1)} ${units[u]}`;
}

/** "2026-12-06 03:00" in the browser's zone. */
function minute(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The line saying what the last pass removed. */
export function lastPassLine(last: RetentionPass | null | undefined): string {
  if (!last) return "No pass yet: the server runs one at its start and then daily.";
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
  return `Last pass ${minute(last.at)}: removed ${plural(last.runs, "run")}, ${plural(last.images, "image")}, ${byteSize(last.bytes)}`;
}

/** A days field's text as the server's value (null: forever), or why it is not a number. The
 * server judges the number (its limit); its refusal names the field first. */
function days(text: string, what: string): { value: number | null } | { error: string } {
  const t = text.trim();
  if (!t) return { value: null };
  if (!/^\d{1,9}$/.test(t)) return { error: `Give ${what} as a whole number of days, or leave it empty to keep forever.` };
  const n = Number(t);
  return { value: n === 0 ? null : n };
}

/** The field a server refusal is about: its text starts with the field's name. */
function fieldOf(error: string): "run_days" | "image_days" | null {
  if (error.startsWith("run_days ")) return "run_days";
  if (error.startsWith("image_days ")) return "image_days";
  return null;
}

/** One days field with its error under it. */
function DaysField(p: { id: string; label: string; help: string; value: string; error: string; onValue: (v: string) => void }) {
  const errorId = `${p.id}-error`;
  return (
    <div class={`field${p.error ? " pfield-error" : ""}`}>
      <label for={p.id}>{p.label}</label>
      <input
        id={p.id}
        inputMode="numeric"
        placeholder="forever"
        value={p.value}
        onInput={(e) => p.onValue(e.currentTarget.value)}
        aria-invalid={p.error ? "true" : undefined}
        aria-describedby={p.error ? errorId : undefined}
        data-testid={p.id}
      />
      <small class="muted">{p.help}</small>
      {p.error && (
        <small class="field-error" id={errorId} role="alert" data-testid={errorId}>
          {p.error}
        </small>
      )}
    </div>
  );
}

/** The section (inside the settings dialog, after the secrets). */
export function RetentionSection() {
  const [loaded, setLoaded] = useState<Retention | null>(null);
  const [loadError, setLoadError] = useState("");
  const [runDays, setRunDays] = useState("");
  const [imageDays, setImageDays] = useState("");
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const { error, busy, problems, run } = useSubmit();

  const show = (r: Retention) => {
    setLoaded(r);
    setRunDays(r.run_days ? String(r.run_days) : "");
    setImageDays(r.image_days ? String(r.image_days) : "");
  };
  useEffect(() => {
    api
      .retention()
      .then(show)
      .catch((e) => setLoadError(errorText(e)));
  }, []);

  const onSave = (e: Event) => {
    e.preventDefault();
    setSaved(false);
    const runs = days(runDays, "the runs' days");
    const images = days(imageDays, "the images' days");
    const errors: Record<string, string> = {};
    if ("error" in runs) errors.run_days = runs.error;
    if ("error" in images) errors.image_days = images.error;
    setFieldErrors(errors);
    if ("error" in runs || "error" in images) return;
    void run(async () => {
      show(await api.saveRetention({ run_days: runs.value, image_days: images.value }));
      setSaved(true);
    });
  };

  const refused = fieldOf(error);
  const at = (field: string) => fieldErrors[field] ?? problems[field] ?? (refused === field ? error : "");
  return (
    <section class="secrets" aria-labelledby="retention-title" data-testid="retention">
      <h3 id="retention-title">Retention</h3>
      <p class="muted small">
        How long task runs stay in the history. A daily pass removes older ended runs (a running one stays) and the
        images of older runs. Empty or 0 keeps them forever.
      </p>
      {loadError && <FormError error={loadError} />}
      <form class="form" onSubmit={onSave} noValidate data-testid="retention-form">
        <DaysField
          id="retention-run-days"
          label="Keep runs (days)"
          help="Runs with their steps, events and trace."
          value={runDays}
          error={at("run_days")}
          onValue={setRunDays}
        />
        <DaysField
          id="retention-image-days"
          label="Keep images (days)"
          help="Screenshots the steps kept; the runs stay."
          value={imageDays}
          error={at("image_days")}
          onValue={setImageDays}
        />
        {!refused && <FormError error={error} testId="retention-error" />}
        <p class="muted small" data-testid="retention-last">
          {loaded ? lastPassLine(loaded.last) : "Loading…"}
        </p>
        {saved && (
          <p class="small" role="status" data-testid="retention-saved">
            Saved; the next daily pass applies it.
          </p>
        )}
        <SubmitButton busy={busy || !loaded} label="Set retention" busyLabel={loaded ? "Setting…" : "Loading retention…"} testId="retention-save" />
      </form>
    </section>
  );
}
