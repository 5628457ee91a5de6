// The experience audit (seed 001 §4.3) on the 🧠 page: when it runs (the daily schedule in words,
// its next fire, changeable), how the last pass went, and "Run the audit now" — the pass runs on
// the server; the panel asks how it goes every 1.5 s until it ends, then the list is read again.
// The audit only suggests; deleting is the person's decision, on each experience.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, errorText } from "../../api";
import { dateTime, relative } from "../../format";
import type { AuditRun, AuditState } from "../../types";
import { useSubmit } from "../../hooks/useSubmit";
import { DialogButtons, FormError } from "../FormFields";
import { pendingChanged } from "../PageNav";

/** Props of the panel. */
export interface AuditPanelProps {
  /** A pass ended: the experiences' states changed. */
  onPassEnded: () => void;
  onError: (message: string) => void;
}

/** What a finished pass did, in words. */
function passText(r: AuditRun): string {
  const what = `reviewed ${r.reviewed} ${r.reviewed === 1 ? "experience" : "experiences"}, suggested deleting ${r.suggested}`;
  return r.status === "failed" ? `failed${r.error ? `: ${r.error}` : ""} (${what})` : what;
}

/** The panel. */
export function AuditPanel({ onPassEnded, onError }: AuditPanelProps) {
  const [state, setState] = useState<AuditState | null>(null);
  const [starting, setStarting] = useState(false);
  const [editing, setEditing] = useState(false);
  const running = state?.running ?? null;
  const ended = useRef(onPassEnded);
  ended.current = onPassEnded;

  const load = async (): Promise<AuditState | null> => {
    try {
      const s = await api.audit();
      setState(s);
      return s;
    } catch (e) {
      onError(errorText(e));
      return null;
    }
  };
  useEffect(() => {
    void load();
  }, []);

  // While a pass runs (started here, by the schedule, or on another page): follow it to its end.
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => {
      void load().then((s) => {
        if (s && !s.running) {
          ended.current();
          pendingChanged();
        }
      });
    }, 1500);
    return () => clearInterval(t);
  }, [running?.id]);

  const runNow = async () => {
    setStarting(true);
    try {
      const run = await api.runAudit();
      setState((s) => s && { ...s, running: run });
    } catch (e) {
      onError(errorText(e));
      if (e instanceof ApiError && e.status === 409) void load();
    } finally {
      setStarting(false);
    }
  };

  const schedule = state?.schedule;
  return (
    <section class="audit-panel" aria-label="The audit" data-testid="audit-panel">
      <div class="audit-line">
        <strong>🔎 Audit</strong>
        {schedule ? (
          <span class="small" data-testid="audit-schedule">
            {schedule.enabled ? (
              <>
                {schedule.description}
                {schedule.next_fire_at && (
                  <span class="muted" title={dateTime(schedule.next_fire_at)}>
                    {" "}
                    · next {relative(schedule.next_fire_at)}
                  </span>
                )}
              </>
            ) : (
              <span class="muted">the daily audit is off</span>
            )}
          </span>
        ) : (
          <span class="muted small">…</span>
        )}
        {schedule && !editing && (
          <button type="button" class="link small" onClick={() => setEditing(true)} data-testid="audit-schedule-edit">
            change
          </button>
        )}
        <span class="grow" />
        {running ? (
          <span class="chip chip-running" data-testid="audit-running">
            <span class="pulse" aria-hidden="true" /> auditing…
          </span>
        ) : (
          <button type="button" class="btn btn-small" onClick={() => void runNow()} disabled={starting || !state} data-testid="audit-now" title="The model reviews every experience not kept by you and suggests what to delete">
            {starting ? "Starting…" : "Run the audit now"}
          </button>
        )}
      </div>
      {state?.last && !running && (
        <div class={`small ${state.last.status === "failed" ? "audit-failed" : "muted"}`} data-testid="audit-last">
          Last pass ({state.last.trigger === "manual" ? "by hand" : "scheduled"}, <span title={dateTime(state.last.finished_at ?? state.last.started_at)}>{relative(state.last.finished_at ?? state.last.started_at)}</span>):{" "}
          {passText(state.last)}
        </div>
      )}
      {editing && schedule && (
        <AuditScheduleForm
          cron={schedule.cron}
          tz={schedule.tz}
          enabled={schedule.enabled}
          onDone={(saved) => {
            setEditing(false);
            if (saved) setState((s) => s && { ...s, schedule: saved });
          }}
        />
      )}
    </section>
  );
}

/** Changing when the daily audit runs: a cron expression, its time zone, on or off. */
function AuditScheduleForm(p: { cron: string; tz: string; enabled: boolean; onDone: (saved: AuditState["schedule"] | null) => void }) {
  const [cron, setCron] = useState(p.cron);
  const [tz, setTz] = useState(p.tz);
  const [enabled, setEnabled] = useState(p.enabled);
  const { error, problems, busy, submit } = useSubmit();

  return (
    <form
      class="audit-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit(async () => p.onDone(await api.setAuditSchedule({ cron, tz, enabled })));
      }}
      noValidate
      data-testid="audit-schedule-form"
    >
      <div class="pfield">
        <label for="audit-cron">When (cron: minute hour day month weekday)</label>
        <input id="audit-cron" class="mono" value={cron} onInput={(e) => setCron(e.currentTarget.value)} data-testid="audit-cron" />
        {problems.cron && <div class="issue issue-error small">{problems.cron}</div>}
      </div>
      <div class="pfield">
        <label for="audit-tz">Time zone</label>
        <input id="audit-tz" value={tz} onInput={(e) => setTz(e.currentTarget.value)} data-testid="audit-tz" />
        {problems.tz && <div class="issue issue-error small">{problems.tz}</div>}
      </div>
      <label class="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} /> runs daily
      </label>
      <FormError error={problems.cron || problems.tz ? "" : error} />
      <DialogButtons onCancel={() => p.onDone(null)} busy={busy} label="Save" busyLabel="Saving…" testId="audit-schedule-save" />
    </form>
  );
}
