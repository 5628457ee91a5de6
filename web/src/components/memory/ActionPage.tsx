// One action of the library (or a new one): its name, aliases, app, description, variables and
// steps in the task file editor in library mode (the sixteen library types, no coordinates),
// checked by the server as the library admits it 400 ms after each change and again on save (a
// refused save shows every problem at its path); its use; delete; and "try it" — the stored
// action played once on a device through the task runner, each step's result on its card and
// listed below, with the lines `run_action` answers the model.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, errorText, imageUrl } from "../../api";
import { dateTime, relative, shortId } from "../../format";
import { useFileSave } from "../../hooks/useFileSave";
import { useCheck } from "../../hooks/useValidation";
import { navigate, queryParam, useLeaveGuard } from "../../router";
import { resultsByPath, resultStep } from "../../task-run-state";
import type { ActionTry, Device, LibraryAction } from "../../types";
import { DevicePicker, firstDevice } from "../DevicePicker";
import { ErrorBanner } from "../FormFields";
import { RunSteps } from "../common/RunSteps";
import { draftOf, TaskFileEditor, type TaskDraft } from "../common/TaskFileEditor";
import { EditorBar } from "../common/EditorBar";
import { MenuButton } from "../Sidebar";

type Obj = Record<string, unknown>;

/** A new action's file. */
const BLANK: Obj = { name: "", steps: [] };

/** The part of a stored action a person edits (what the API takes back). */
function editable(a: LibraryAction): Obj {
  return {
    name: a.name,
    ...(a.aliases.length ? { aliases: a.aliases } : {}),
    ...(a.description ? { description: a.description } : {}),
    ...(a.app ? { app: a.app } : {}),
    ...(Object.keys(a.variables).length ? { variables: a.variables } : {}),
    steps: a.steps,
  };
}

/** Props of the page. */
export interface ActionPageProps {
  /** The action's id or name; null: a new one. */
  id: string | null;
  devices: Device[];
  openImage: (src: string, alt: string) => void;
}

/** The page. */
export function ActionPage({ id, devices, openImage }: ActionPageProps) {
  const [action, setAction] = useState<LibraryAction | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    if (!id) return;
    api
      .action(id)
      .then(setAction)
      .catch((e) => setError(errorText(e)));
  }, [id]);

  if (id && !action) {
    return (
      <div class="page" data-testid="action-page">
        <header class="topbar">
          <MenuButton />
          <div class="topbar-title">
            <h1>🎬 Action</h1>
          </div>
        </header>
        <div class="page-body">{error ? <div class="banner banner-error">{error}</div> : <p class="muted">Loading…</p>}</div>
      </div>
    );
  }
  return <ActionEditor key={action?.id ?? "new"} action={action} devices={devices} openImage={openImage} onSaved={setAction} />;
}

/** The editor of one action (a stored one, or null: new). */
function ActionEditor({ action, devices, openImage, onSaved }: { action: LibraryAction | null; devices: Device[]; openImage: (src: string, alt: string) => void; onSaved: (a: LibraryAction) => void }) {
  const stored = useMemo(() => draftOf(action ? editable(action) : BLANK), [action]);
  const [draft, setDraft] = useState<TaskDraft>(stored);
  // Saved: the editor shows the action as the server stored it.
  useEffect(() => setDraft(stored), [stored]);
  const dirty = draft.text !== stored.text;
  const release = useLeaveGuard(dirty, "Leave without saving? Your changes to this action will be lost.");
  const validation = useCheck(draft.text, "", api.validateAction);
  const [device, setDevice] = useState("");
  const [tried, setTried] = useState<{ result: ActionTry; text: string } | null>(null);

  useEffect(() => {
    if (device || devices.length === 0) return;
    api
      .settings()
      // A device the person picked while the settings loaded stays picked.
      .then((s) => setDevice((now) => now || firstDevice(devices, s.default_device)))
      .catch(() => setDevice((now) => now || firstDevice(devices, null)));
  }, [devices]);

  // A blank new action nobody has touched: no problems shown until the person types or saves.
  const { issues, idle, banner, setBanner, notice, saving, save: saveWith } = useFileSave(validation, !action && !dirty);

  const save = () =>
    saveWith(async () => {
      const saved = action ? await api.replaceAction(action.id, draft.text) : await api.createAction(draft.text);
      release();
      if (!action) navigate(`/memory/actions/${encodeURIComponent(saved.id)}`, { replace: true });
      else onSaved(saved);
      return "Saved.";
    });

  const remove = async () => {
    if (!action || !window.confirm(`Delete the action “${action.name}”? Runs no longer recall it or run it.`)) return;
    try {
      await api.deleteAction(action.id);
      release();
      navigate("/memory/actions");
    } catch (e) {
      setBanner(errorText(e));
    }
  };

  // The try's results stand on the step cards while the steps are those it ran.
  const triedSteps = useMemo(() => (tried ? tried.result.steps.map(resultStep) : []), [tried]);
  const results = useMemo(() => (tried && tried.text === draft.text ? resultsByPath(triedSteps) : undefined), [tried, triedSteps, draft.text]);
  const errors = issues.errors.length;
  const name = action?.name ?? "New action";

  return (
    <div class="page" data-testid="action-page">
      <header class="topbar">
        <MenuButton />
        <div class="topbar-title">
          <h1 data-testid="action-title">🎬 {name}</h1>
          {action && (
            <span class="muted small" data-testid="action-use">
              {action.hits === 0 ? "never used" : `used ${action.hits} ${action.hits === 1 ? "time" : "times"}`}
              {action.last_used_at && <span title={dateTime(action.last_used_at)}>, last {relative(action.last_used_at)}</span>} ·{" "}
              {action.source_run ? `distilled from run ${shortId(action.source_run)}` : "written by hand"}
            </span>
          )}
        </div>
        <div class="topbar-tools">
          {action && (
            <button class="btn btn-ghost btn-small btn-danger-text" onClick={() => void remove()} data-testid="action-delete">
              Delete
            </button>
          )}
        </div>
      </header>
      <ErrorBanner message={banner} onDismiss={() => setBanner("")} />
      <div class="page-body">
        <EditorBar
          validation={validation}
          errors={errors}
          idle={idle ? "new action: name it and add steps" : undefined}
          dirty={dirty}
          notice={notice}
          onDiscard={action ? () => setDraft(stored) : undefined}
          onSave={() => void save()}
          saving={saving}
          saveLabel={action ? "Save" : "Create action"}
          canSave={dirty || !action}
          saveTestId="save-action"
        />
        {action && (
          <TryPanel
            action={action}
            devices={devices}
            device={device}
            onDevice={setDevice}
            dirty={dirty}
            result={tried?.result ?? null}
            onResult={(result) => setTried({ result, text: stored.text })}
            stale={!!tried && tried.text !== draft.text}
            openImage={openImage}
            steps={triedSteps}
          />
        )}
        <TaskFileEditor draft={draft} onChange={setDraft} issues={issues} devices={devices} defaultDevice={device} results={results} kind="action" />
      </div>
    </div>
  );
}

/** Props of the try panel. */
interface TryPanelProps {
  action: LibraryAction;
  devices: Device[];
  device: string;
  onDevice: (id: string) => void;
  /** The editor holds unsaved changes (a try plays the stored action). */
  dirty: boolean;
  result: ActionTry | null;
  onResult: (r: ActionTry) => void;
  /** The steps changed since the try. */
  stale: boolean;
  steps: ReturnType<typeof resultStep>[];
  openImage: (src: string, alt: string) => void;
}

/** "Try it": a device, values for the action's variables, and how the last try went. */
function TryPanel(p: TryPanelProps) {
  const [values, setValues] = useState<Record<string, string>>(() => ({ ...p.action.variables }));
  const [running, setRunning] = useState(false);
  const [error, setError] = useState("");
  const button = useRef<HTMLButtonElement>(null);
  // `?try=1` (the list's ▶ Try): the button has the focus.
  useEffect(() => {
    if (queryParam("try")) button.current?.focus();
  }, []);

  const run = async () => {
    setRunning(true);
    setError("");
    try {
      p.onResult(await api.tryAction(p.action.id, p.device, values));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setRunning(false);
    }
  };

  const vars = Object.keys(p.action.variables);
  const r = p.result;
  return (
    <section class="try-panel" aria-label="Try the action" data-testid="action-try">
      <div class="try-head">
        <strong>Try it</strong>
        <DevicePicker devices={p.devices} value={p.device} onChange={p.onDevice} locked={running} title="The device the action runs on" />
        {vars.map((v) => (
          <label key={v} class="try-var small">
            <span class="mono">{v}</span>
            <input value={values[v] ?? ""} onInput={(e) => setValues({ ...values, [v]: e.currentTarget.value })} aria-label={`Value of ${v}`} data-testid={`try-var-${v}`} />
          </label>
        ))}
        <button
          ref={button}
          class="btn btn-small"
          onClick={() => void run()}
          disabled={running || p.dirty || !p.device}
          title={p.dirty ? "Save your changes first: a try plays the stored action" : "Play the stored action once on the device"}
          data-testid="try-action"
        >
          {running ? "Running…" : "▶ Try it"}
        </button>
        {p.dirty && <span class="muted small">save first: a try plays the stored action</span>}
        {r && (
          <span class={`chip ${r.completed ? "chip-success" : "chip-failed"}`} data-testid="try-outcome">
            {r.completed ? "✓ completed" : "✕ failed"} on {r.device}
          </span>
        )}
        {r && p.stale && <span class="muted small">the steps changed since; save and try again to see them on the cards</span>}
      </div>
      {error && (
        <div class="banner banner-error" role="alert" data-testid="try-error">
          {error}
        </div>
      )}
      {r && (
        <>
          <pre class="try-text small" data-testid="try-text">
            {r.text}
          </pre>
          <RunSteps steps={p.steps} runId={r.run_id} openImage={p.openImage} imageSrc={(id) => imageUrl(r.run_id, id)} />
        </>
      )}
    </section>
  );
}
