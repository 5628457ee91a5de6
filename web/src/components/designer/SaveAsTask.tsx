// Saving a reviewed draft as a task: its name and, optionally, a schedule (the Tasks page's
// schedule fields). Nothing half-made stays: with a schedule the task is created switched off,
// the schedule added, then the task switched on; a refused schedule takes the new task away again
// and shows its problems at their fields. Once saved, the kept draft is discarded (it is a task now).
import { useState } from "preact/hooks";
import { api, ApiError, errorText } from "../../api";
import { DialogButtons } from "../FormFields";
import type { Found, Issues } from "../steps/issues";
import { ScheduleFields, scheduleBody, scheduleForm, scheduleProblems, type ScheduleFormState } from "../tasks/Schedules";
import type { TaskDetail } from "../../types";

/** Props of the form. */
export interface SaveAsTaskProps {
  /** The task's name (the draft's `name`); editing it edits the draft. */
  name: string;
  onName: (name: string) => void;
  /** The task file as it is now. */
  text: string;
  /** The server refused the file: its problems, for the editor to show at their steps. */
  onRefused: (issues: Issues) => void;
  onSaved: (task: TaskDetail) => void;
  onCancel: () => void;
}

/** The form. */
export function SaveAsTask(p: SaveAsTaskProps) {
  const [scheduled, setScheduled] = useState(false);
  const [form, setForm] = useState<ScheduleFormState>(() => scheduleForm(null));
  const [problems, setProblems] = useState<Found[]>([]);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    setProblems([]);
    try {
      let task: TaskDetail;
      try {
        task = await api.createTask(p.text, !scheduled);
      } catch (err) {
        const found = err instanceof ApiError ? err.issues : null;
        if (found) p.onRefused(found);
        throw err;
      }
      if (scheduled) {
        try {
          await api.addSchedule(task.id, scheduleBody(form));
        } catch (err) {
          // The task goes again: saving is all or nothing.
          await api.deleteTask(task.id).catch(() => undefined);
          const found = err instanceof ApiError ? err.issues : null;
          if (found) {
            setProblems(scheduleProblems(found.errors));
            throw new Error("the schedule is invalid: nothing was saved; fix it where it is marked");
          }
          throw err;
        }
        task = await api.setTaskEnabled(task.id, true);
      }
      // It is a task now: the kept draft has done its work.
      await api.discardDraft().catch(() => undefined);
      p.onSaved(task);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <form class="form save-draft" onSubmit={(e) => void save(e)} noValidate aria-label="Save as a task" data-testid="save-draft-form">
      <div class="pfield">
        <label for="save-name">Task name</label>
        <input id="save-name" value={p.name} required maxLength={200} onInput={(e) => p.onName(e.currentTarget.value)} data-testid="save-name" />
      </div>
      <label class="check">
        <input type="checkbox" checked={scheduled} onChange={(e) => setScheduled(e.currentTarget.checked)} data-testid="save-scheduled" /> Run it on a schedule
      </label>
      {scheduled && (
        <div class="schedule-form">
          <ScheduleFields form={form} onChange={setForm} problems={problems} />
        </div>
      )}
      {error && (
        <div class="banner banner-error" role="alert" data-testid="save-error">
          {error}
        </div>
      )}
      <DialogButtons
        onCancel={p.onCancel}
        busy={busy}
        label={scheduled ? "Save the task and its schedule" : "Save the task"}
        busyLabel="Saving…"
        disabled={!p.name.trim()}
        testId="save-draft"
      />
    </form>
  );
}
