// A task's schedules: each in the server's words with its next fires (in the schedule's own time
// zone, named, and in the viewer's when that differs), policies and on/off switch;
// add, change and delete, with the server's problems at the field they name (the form's fields:
// common/ScheduleFields).
import { useState } from "preact/hooks";
import { api, ApiError, errorText } from "../../api";
import { dateTime, relative, viewerZone, zonedTime } from "../../format";
import type { Schedule, TaskDetail } from "../../types";
import type { Found } from "../steps/issues";
import { ScheduleFields, scheduleBody, scheduleForm, scheduleProblems, type ScheduleFormState } from "../common/ScheduleFields";

/** Props of the schedules panel. */
export interface SchedulesProps {
  task: TaskDetail;
  /** Something changed: load the task again. */
  onChanged: () => Promise<void>;
}

/** The panel. */
export function Schedules({ task, onChanged }: SchedulesProps) {
  const [editing, setEditing] = useState<string | "new" | null>(task.schedules.length === 0 ? "new" : null);
  const [banner, setBanner] = useState("");

  const toggle = async (s: Schedule) => {
    setBanner("");
    try {
      await api.setScheduleEnabled(task.id, s.id, !s.enabled);
      await onChanged();
    } catch (e) {
      setBanner(errorText(e));
    }
  };
  const remove = async (s: Schedule) => {
    if (!window.confirm(`Delete the schedule “${s.description}”?`)) return;
    try {
      await api.deleteSchedule(task.id, s.id);
      await onChanged();
    } catch (e) {
      setBanner(errorText(e));
    }
  };

  return (
    <section class="schedules" data-testid="schedules">
      {!task.enabled && (
        <div class="banner banner-info banner-flush">
          This task is switched off: none of its schedules fires until it is switched on again.
        </div>
      )}
      {banner && (
        <div class="banner banner-error" role="alert">
          {banner}
        </div>
      )}
      {task.schedules.length === 0 && editing !== "new" && <p class="muted">No schedules: the task runs only when started.</p>}
      <ul class="schedule-list">
        {task.schedules.map((s) =>
          editing === s.id ? (
            <li key={s.id} class="schedule-card">
              <ScheduleForm task={task} schedule={s} onDone={async () => { setEditing(null); await onChanged(); }} onCancel={() => setEditing(null)} />
            </li>
          ) : (
            <li key={s.id} class={`schedule-card${s.enabled ? "" : " row-off"}`} data-testid="schedule">
              <div class="schedule-head">
                <input
                  type="checkbox"
                  role="switch"
                  class="switch"
                  checked={s.enabled}
                  onChange={() => void toggle(s)}
                  aria-label={`Schedule ${s.description} ${s.enabled ? "on" : "off"}`}
                  data-testid="schedule-toggle"
                />
                <strong class="schedule-words" data-testid="schedule-words">
                  {s.description}
                </strong>
                <span class="grow" />
                <button class="btn btn-ghost btn-small" onClick={() => setEditing(s.id)} aria-label={`Change the schedule ${s.description}`}>
                  Change
                </button>
                <button class="btn btn-ghost btn-small btn-danger-text" onClick={() => void remove(s)} aria-label={`Delete the schedule ${s.description}`}>
                  Delete
                </button>
              </div>
              <div class="schedule-meta small">
                <span class="mono">{s.kind === "cron" ? `${s.expr} (${s.tz})` : s.kind === "every" ? `every ${s.seconds} s` : dateTime(s.at)}</span>
                <span>missed fires: {s.misfire === "run_once" ? "run once" : "skip"}</span>
                <span>device busy: {s.busy === "wait" ? "wait" : "skip"}</span>
                {s.last_fire_at && <span title={dateTime(s.last_fire_at)}>last fired {relative(s.last_fire_at)}</span>}
              </div>
              {s.next_fires.length > 0 && task.enabled ? (
                <NextFires schedule={s} />
              ) : (
                <div class="small muted" data-testid="no-fires">
                  {!task.enabled ? "Off: the task is switched off." : s.enabled ? "Nothing is due any more." : "Off: it does not fire."}
                </div>
              )}
            </li>
          ),
        )}
        {editing === "new" && (
          <li class="schedule-card">
            <ScheduleForm task={task} schedule={null} onDone={async () => { setEditing(null); await onChanged(); }} onCancel={task.schedules.length ? () => setEditing(null) : undefined} />
          </li>
        )}
      </ul>
      {editing === null && (
        <button class="btn" onClick={() => setEditing("new")} data-testid="add-schedule">
          + Add schedule
        </button>
      )}
    </section>
  );
}

/** A schedule's next fires as its clock shows them — a cron schedule's in its own zone, the others
 * in the viewer's — with the zone named; and in the viewer's zone too when that is another. */
function NextFires({ schedule: s }: { schedule: Schedule }) {
  const mine = viewerZone();
  const zone = s.kind === "cron" && s.tz ? s.tz : mine;
  const times = (z: string) => s.next_fires.map((t) => zonedTime(t, z)).join(", ");
  return (
    <div class="small next-fires">
      <div data-testid="next-fires" title={s.next_fires.join("\n")}>
        Next: {times(zone)} <span class="zone">{zone === mine ? `${zone}, your time` : zone}</span>{" "}
        <span class="muted">({relative(s.next_fires[0])})</span>
      </div>
      {zone !== mine && (
        <div class="muted" data-testid="next-fires-local">
          Your time: {times(mine)} <span class="zone">{mine}</span>
        </div>
      )}
    </div>
  );
}

/** Adding or changing one schedule. */
function ScheduleForm({ task, schedule, onDone, onCancel }: { task: TaskDetail; schedule: Schedule | null; onDone: () => Promise<void>; onCancel?: () => void }) {
  const [f, setF] = useState<ScheduleFormState>(() => scheduleForm(schedule));
  const [problems, setProblems] = useState<Found[]>([]);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    setProblems([]);
    try {
      const body = scheduleBody(f);
      if (schedule) await api.replaceSchedule(task.id, schedule.id, body);
      else await api.addSchedule(task.id, body);
      await onDone();
    } catch (err) {
      const found = err instanceof ApiError ? err.issues : null;
      if (found) setProblems(scheduleProblems(found.errors));
      else setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="form schedule-form" onSubmit={(e) => void submit(e)} noValidate data-testid="schedule-form">
      <ScheduleFields form={f} onChange={setF} problems={problems} />
      {error && (
        <div class="banner banner-error" role="alert">
          {error}
        </div>
      )}
      <div class="dialog-buttons">
        {onCancel && (
          <button type="button" class="btn" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button class="btn btn-primary" type="submit" disabled={busy} data-testid="schedule-save">
          {busy ? "Saving…" : schedule ? "Save schedule" : "Add schedule"}
        </button>
      </div>
    </form>
  );
}

