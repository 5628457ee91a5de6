// Saving a reviewed draft as a task: its name and, optionally, a schedule (the Tasks page's
// schedule fields). The name is the saved task's: typing it leaves the draft under review as it is
// (not edited, its try results still on the cards); a refused name shows at its field. Nothing
// half-made stays: with a schedule the task is created switched off, the schedule added, then the
// task switched on; a refused schedule takes the new task away again and shows its problems at
// their fields. Once saved, the kept draft is discarded (it is a task now).
import { useState } from "preact/hooks";
import { api, ApiError, errorText } from "../../api";
import { DialogButtons } from "../FormFields";
import { IssueLines } from "../steps/Fields";
import type { Found, Issues } from "../steps/issues";
import { ScheduleFields, scheduleBody, scheduleForm, scheduleProblems, type ScheduleFormState } from "../common/ScheduleFields";
import type { Issue, TaskDetail } from "../../types";

/** Props of the form. */
export interface SaveAsTaskProps {
  /** The task file as it is now (its `name` is where the name field starts). */
  file: Record<string, unknown>;
  /** The server refused the file: its problems (but the name's, shown here), for the editor to
   * show at their steps. */
  onRefused: (issues: Issues) => void;
  onSaved: (task: TaskDetail) => void;
  onCancel: () => void;
}

/** The form. */
export function SaveAsTask(p: SaveAsTaskProps) {
  const [name, setName] = useState(() => (typeof p.file.name === "string" ? p.file.name : ""));
  const [nameProblems, setNameProblems] = useState<Found[]>([]);
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
    setNameProblems([]);
    try {
      let task: TaskDetail;
      try {
        task = await api.createTask(JSON.stringify({ ...p.file, name }, null, 2), !scheduled);
      } catch (err) {
        const found = err instanceof ApiError ? err.issues : null;
        if (found) {
          const isName = (i: Issue) => i.path === "name";
          setNameProblems(found.errors.filter(isName).map((i) => ({ ...i, severity: "error", field: "name" })));
          const rest = { errors: found.errors.filter((i) => !isName(i)), warnings: found.warnings.filter((i) => !isName(i)) };
          if (rest.errors.length) p.onRefused(rest);
        }
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
      <div class={`pfield${nameProblems.length ? " pfield-error" : ""}`}>
        <label for="save-name">Task name</label>
        <input
          id="save-name"
          value={name}
          required
          aria-invalid={nameProblems.length ? "true" : undefined}
          onInput={(e) => setName(e.currentTarget.value)}
          data-testid="save-name"
        />
        <IssueLines issues={nameProblems} />
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
        disabled={!name.trim()}
        testId="save-draft"
      />
    </form>
  );
}
