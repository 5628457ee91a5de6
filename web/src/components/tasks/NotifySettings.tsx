// What a stored task's runs report as notifications (the bell, browser notifications): its
// failures (on by default), its successes, its notify steps. Each switch is saved at once.
import { useState } from "preact/hooks";
import { api, errorText } from "../../api";
import type { TaskDetail, TaskNotify } from "../../types";

const SWITCHES: { key: keyof TaskNotify; label: string }[] = [
  { key: "on_failure", label: "when a run fails, times out or is cut off" },
  { key: "on_success", label: "when a run succeeds" },
  { key: "on_notify_step", label: "for each notify step" },
];

/** The task's notification switches. */
export function NotifySettings({ task }: { task: TaskDetail }) {
  const [notify, setNotify] = useState<TaskNotify>(task.notify);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState("");
  const set = async (key: keyof TaskNotify, on: boolean) => {
    // The switch shows the choice at once; a refusal puts it back.
    const before = notify;
    setNotify({ ...notify, [key]: on });
    setSaving(true);
    setError("");
    try {
      setNotify((await api.setTaskNotify(task.id, { [key]: on })).notify);
    } catch (e) {
      setNotify(before);
      setError(errorText(e));
    } finally {
      setSaving(false);
    }
  };
  return (
    <fieldset class="notify-settings" data-testid="notify-settings">
      <legend>Notify</legend>
      {SWITCHES.map((s) => (
        <label key={s.key} class="notify-switch">
          <input type="checkbox" checked={notify[s.key]} disabled={saving} onChange={(e) => void set(s.key, (e.target as HTMLInputElement).checked)} data-testid={`notify-${s.key}`} />
          {s.label}
        </label>
      ))}
      {error && (
        <div class="banner banner-error" role="alert">
          {error}
        </div>
      )}
    </fieldset>
  );
}
