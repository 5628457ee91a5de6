// A schedule's form: its state, the body sent to the server, and the fields (when it fires — cron
// with presets, an interval, once —, its zone, policies and on/off) with the server's problems at
// the field they name (expr, tz, seconds, at, busy, misfire). The Tasks area's schedules panel and
// designer mode's "save as a task" share it.
import { type ScheduleBody } from "../../api";
import { viewerZone } from "../../format";
import type { Issue, Schedule } from "../../types";
import { IssueLines } from "../steps/Fields";
import type { Found } from "../steps/issues";

/** Interval units of an `every` schedule. */
const UNITS = [
  ["seconds", 1],
  ["minutes", 60],
  ["hours", 3600],
  ["days", 86_400],
] as const;

/** Cron expressions a person often wants. */
const PRESETS = [
  ["every 15 minutes", "*/15 * * * *"],
  ["hourly", "0 * * * *"],
  ["daily at 03:00", "0 3 * * *"],
  ["weekdays at 09:00", "0 9 * * 1-5"],
  ["Mondays at 08:00", "0 8 * * 1"],
] as const;

/** Every IANA zone this browser knows (for the zone field's suggestions). */
function zones(): string[] {
  try {
    return (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf("timeZone");
  } catch {
    return ["UTC"];
  }
}

/** An ISO time as the value of a `datetime-local` input (local time, minutes). */
function localInput(iso: string | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The form's state. */
export interface ScheduleFormState {
  kind: "cron" | "every" | "once";
  expr: string;
  tz: string;
  amount: string;
  unit: number;
  at: string;
  misfire: "run_once" | "skip";
  busy: "wait" | "skip";
  enabled: boolean;
}

/** The form of a stored schedule, or of a new one (null): daily at 03:00 in this browser's zone. */
export function scheduleForm(s: Schedule | null): ScheduleFormState {
  const every = s?.seconds ?? 3600;
  const unit = [...UNITS].reverse().find(([, n]) => every % n === 0)?.[1] ?? 1;
  return {
    kind: s?.kind ?? "cron",
    expr: s?.expr ?? "0 3 * * *",
    tz: s?.tz ?? viewerZone(),
    amount: String(every / unit),
    unit,
    at: localInput(s?.at),
    misfire: s?.misfire ?? "run_once",
    busy: s?.busy ?? "skip",
    enabled: s?.enabled ?? true,
  };
}

/** The API body of a form; a field the browser cannot read is sent as typed, for the server to
 * refuse at its field. */
export function scheduleBody(f: ScheduleFormState): ScheduleBody {
  const base = { misfire: f.misfire, busy: f.busy, enabled: f.enabled };
  switch (f.kind) {
    case "cron":
      return { kind: "cron", expr: f.expr, tz: f.tz.trim() || "UTC", ...base };
    case "every": {
      const n = Number(f.amount);
      return { kind: "every", seconds: Number.isFinite(n) ? Math.round(n * f.unit) : (f.amount as unknown as number), ...base };
    }
    case "once": {
      const d = new Date(f.at);
      return { kind: "once", at: Number.isNaN(d.getTime()) ? f.at : d.toISOString(), ...base };
    }
  }
}

/** A schedule's problems the server listed, each at its field. */
export function scheduleProblems(errors: Issue[]): Found[] {
  return errors.map((i) => ({ ...i, severity: "error" as const, field: i.path }));
}

/** The fields of a schedule (when it fires, its policies, on/off) with the server's problems at
 * the field each names; the Schedules panel and designer mode's "save as a task" share them. */
export function ScheduleFields({ form: f, onChange, problems }: { form: ScheduleFormState; onChange: (f: ScheduleFormState) => void; problems: Found[] }) {
  const set = <K extends keyof ScheduleFormState>(k: K, v: ScheduleFormState[K]) => onChange({ ...f, [k]: v });
  const at = (key: string) => problems.filter((p) => p.path === key);
  const other = problems.filter((p) => !["kind", "expr", "tz", "seconds", "at", "misfire", "busy", "enabled"].includes(p.path));
  return (
    <>
      <fieldset class="variants">
        <legend>Fires</legend>
        {(
          [
            ["cron", "on a calendar (cron)"],
            ["every", "at an interval"],
            ["once", "once"],
          ] as const
        ).map(([k, label]) => (
          <label key={k} class="check">
            <input type="radio" name="schedule-kind" checked={f.kind === k} onChange={() => set("kind", k)} data-testid={`schedule-kind-${k}`} />
            {label}
          </label>
        ))}
      </fieldset>
      <IssueLines issues={at("kind")} />
      {f.kind === "cron" && (
        <div class="schedule-fields">
          <div class={`pfield grow${at("expr").length ? " pfield-error" : ""}`}>
            <label for="sched-expr">Cron expression</label>
            <input id="sched-expr" class="mono" value={f.expr} onInput={(e) => set("expr", e.currentTarget.value)} aria-invalid={at("expr").length ? "true" : undefined} data-testid="schedule-expr" />
            <small class="muted">
              minute hour day-of-month month day-of-week — e.g.{" "}
              {PRESETS.map(([label, expr], i) => (
                <span key={expr}>
                  {i > 0 && ", "}
                  <button type="button" class="link" onClick={() => set("expr", expr)}>
                    {label}
                  </button>
                </span>
              ))}
            </small>
            <IssueLines issues={at("expr")} />
          </div>
          <div class={`pfield${at("tz").length ? " pfield-error" : ""}`}>
            <label for="sched-tz">Time zone</label>
            <input id="sched-tz" list="sched-zones" value={f.tz} onInput={(e) => set("tz", e.currentTarget.value)} aria-invalid={at("tz").length ? "true" : undefined} data-testid="schedule-tz" />
            <datalist id="sched-zones">
              {zones().map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
            <IssueLines issues={at("tz")} />
          </div>
        </div>
      )}
      {f.kind === "every" && (
        <div class={`pfield${at("seconds").length ? " pfield-error" : ""}`}>
          <label for="sched-every">Every</label>
          <div class="inline">
            <input id="sched-every" class="num" inputMode="decimal" value={f.amount} onInput={(e) => set("amount", e.currentTarget.value)} aria-invalid={at("seconds").length ? "true" : undefined} data-testid="schedule-every" />
            <select aria-label="Unit" value={String(f.unit)} onChange={(e) => set("unit", Number(e.currentTarget.value))}>
              {UNITS.map(([name, n]) => (
                <option key={name} value={String(n)}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <IssueLines issues={at("seconds")} />
        </div>
      )}
      {f.kind === "once" && (
        <div class={`pfield${at("at").length ? " pfield-error" : ""}`}>
          <label for="sched-at">At (your local time)</label>
          <input id="sched-at" type="datetime-local" value={f.at} onInput={(e) => set("at", e.currentTarget.value)} aria-invalid={at("at").length ? "true" : undefined} data-testid="schedule-at" />
          <IssueLines issues={at("at")} />
        </div>
      )}
      <div class="schedule-fields">
        <div class="pfield">
          <label for="sched-misfire">A fire missed while no server ran</label>
          <select id="sched-misfire" value={f.misfire} onChange={(e) => set("misfire", e.currentTarget.value as ScheduleFormState["misfire"])}>
            <option value="run_once">run it once</option>
            <option value="skip">skip it (recorded)</option>
          </select>
          <IssueLines issues={at("misfire")} />
        </div>
        <div class="pfield">
          <label for="sched-busy">A fire while the task runs or its device is busy</label>
          <select id="sched-busy" value={f.busy} onChange={(e) => set("busy", e.currentTarget.value as ScheduleFormState["busy"])}>
            <option value="skip">skip it (recorded)</option>
            <option value="wait">wait for the device (up to an hour)</option>
          </select>
          <IssueLines issues={at("busy")} />
        </div>
        <label class="check">
          <input type="checkbox" checked={f.enabled} onChange={(e) => set("enabled", e.currentTarget.checked)} /> On
        </label>
      </div>
      <IssueLines issues={other} />
    </>
  );
}
