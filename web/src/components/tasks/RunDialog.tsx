// "Run now": the task's variables (prefilled with its defaults; a run may give others) and the
// device (the task's unless another is chosen). Starting opens the run's monitor.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../../api";
import { useSubmit } from "../../hooks/useSubmit";
import { navigate } from "../../router";
import type { Device, TaskDetail } from "../../types";
import { DialogButtons, FormError, Modal } from "../FormFields";
import { deviceName } from "../DevicePicker";
import { secretShown } from "../SecretsSection";

/** Props of the dialog. */
export interface RunDialogProps {
  /** The task's id. */
  taskId: string;
  devices: Device[];
  onClose: () => void;
}

/** The variables a task file declares, as they are. */
function variablesOf(definition: unknown): [string, unknown][] {
  const vars = (definition as { variables?: unknown } | null)?.variables;
  if (!vars || typeof vars !== "object" || Array.isArray(vars)) return [];
  return Object.entries(vars);
}

/** The secret a variable names (`{"secret": "NAME"}`), if it is one. */
function secretOf(v: unknown): string | null {
  const s = (v as { secret?: unknown } | null)?.secret;
  return typeof s === "string" ? s : null;
}

/** The text variables a task file declares, with their defaults (a run may give others). */
export function declaredVariables(definition: unknown): Record<string, string> {
  return Object.fromEntries(
    variablesOf(definition)
      .filter(([, v]) => secretOf(v) === null)
      .map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );
}

/** The secret variables a task file declares, with the secret each names (a run cannot give them). */
export function secretVariables(definition: unknown): [string, string][] {
  return variablesOf(definition).flatMap(([k, v]) => {
    const s = secretOf(v);
    return s === null ? [] : [[k, s] as [string, string]];
  });
}

/** The dialog. */
export function RunDialog({ taskId, devices, onClose }: RunDialogProps) {
  const [task, setTask] = useState<TaskDetail | null>(null);
  const [loadError, setLoadError] = useState("");
  const [vars, setVars] = useState<Record<string, string>>({});
  const [device, setDevice] = useState("");
  const { error, busy, submit } = useSubmit();

  useEffect(() => {
    api
      .task(taskId)
      .then((t) => {
        setTask(t);
        setVars(declaredVariables(t.definition));
        setDevice(t.device);
      })
      .catch((e) => setLoadError(errorText(e)));
  }, [taskId]);

  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (!task) return;
    void submit(async () => {
      const run = await api.runTask(task.id, vars, device && device !== task.device ? device : undefined);
      onClose();
      navigate(`/task-runs/${encodeURIComponent(run.id)}`);
    });
  };

  const names = Object.keys(vars);
  const secrets = task ? secretVariables(task.definition) : [];
  const chosen = devices.find((d) => d.id === device);
  return (
    <Modal labelledBy="run-title" testId="run-dialog" onClose={onClose}>
      <form class="form" onSubmit={onSubmit} noValidate>
        <h2 id="run-title">Run {task ? `“${task.name}”` : "…"} now</h2>
        {loadError && <FormError error={loadError} />}
        <div class="field">
          <label for="run-device">Device</label>
          <select id="run-device" value={device} onChange={(e) => setDevice(e.currentTarget.value)} data-testid="run-device">
            {device && !chosen && <option value={device}>{device} (not connected)</option>}
            {devices.map((d) => (
              <option key={d.id} value={d.id}>
                {deviceName(d)}
                {d.busy ? " (busy)" : ""}
                {task && d.id === task.device ? " — the task's" : ""}
              </option>
            ))}
          </select>
          {chosen?.busy && <small class="muted">{chosen.id} is busy now: the run will be refused until it is free.</small>}
        </div>
        {names.length > 0 && (
          <fieldset class="variables">
            <legend>Variables</legend>
            {names.map((k) => (
              <div class="field" key={k}>
                <label for={`run-var-${k}`} class="mono">
                  {k}
                </label>
                <input id={`run-var-${k}`} value={vars[k]} onInput={(e) => setVars({ ...vars, [k]: e.currentTarget.value })} data-testid="run-var" />
              </div>
            ))}
          </fieldset>
        )}
        {secrets.length > 0 && (
          <p class="muted small" data-testid="run-secrets">
            Secrets:{" "}
            {secrets.map(([k, s]) => (
              <span key={k} class="mono">
                {k}={secretShown(s)}{" "}
              </span>
            ))}
          </p>
        )}
        {task && names.length === 0 && secrets.length === 0 && <p class="muted small">This task has no variables.</p>}
        <FormError error={error} testId="run-error" />
        <DialogButtons onCancel={onClose} busy={busy || !task} label="▶ Run" busyLabel={task ? "Starting…" : "Loading…"} />
      </form>
    </Modal>
  );
}
