// Editing a task file: the draft in the task file editor, checked by the server's validator 400 ms
// after each change, saved with Save (or Ctrl+S) — created or replaced — and guarded: leaving with
// unsaved changes asks first. A blank new task shows no problems and no unsaved changes until the
// person types or presses Create. From a step card's menu, "run to here" runs the file as edited
// from its first step up to that one on its device (which stays where the step left it, for the
// selector picker), and "run this step" runs that step alone: tries, as designer mode's, not runs
// of the task; their results show on the cards. A stored task's notification switches sit above the
// file (saved at once, apart from the file). Its folder, tags and a note on what changed are saved
// with the file (each save is a version: the History tab).
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../../api";
import { useFileSave } from "../../hooks/useFileSave";
import { useValidation } from "../../hooks/useValidation";
import { useLeaveGuard } from "../../router";
import type { Device, Issue, TaskDetail } from "../../types";
import { EditorBar } from "../common/EditorBar";
import { draftOf, TaskFileEditor, type TaskDraft } from "../common/TaskFileEditor";
import { TryPanel, useTry } from "../common/TryPanel";
import type { SaveMeta } from "../../task-versions";
import { NotifySettings } from "./NotifySettings";
import { TaskMetaFields } from "./TaskMetaFields";

type Obj = Record<string, unknown>;

/** A new task's file. */
const BLANK: Obj = { name: "", steps: [] };

/** Props of the editor. */
export interface TaskEditorProps {
  /** The task to edit; null for a new one. */
  task: TaskDetail | null;
  /** A new task starts as a copy of this task's file (Duplicate). */
  copyOf?: TaskDetail | null;
  devices: Device[];
  /** Shows a step's screenshot of a run to here. */
  openImage: (src: string, alt: string) => void;
  onSaved: (t: TaskDetail) => void;
}

/** The first draft: the stored file, a copy renamed, or a blank task. */
function firstDraft(task: TaskDetail | null, copyOf?: TaskDetail | null): TaskDraft {
  if (task) return draftOf(task.definition as Obj);
  if (copyOf) return draftOf({ ...(copyOf.definition as Obj), name: `${copyOf.name} (copy)` });
  return draftOf(BLANK);
}

/** What a save sends besides the file: the stored task's folder and tags (a copy's too), no note. */
function metaOf(task: TaskDetail | null, copyOf?: TaskDetail | null): SaveMeta {
  const from = task ?? copyOf;
  return { folder: from?.folder ?? "", tags: from?.tags ?? [], note: "" };
}

/** The editor with its toolbar. */
export function TaskEditor({ task, copyOf, devices, openImage, onSaved }: TaskEditorProps) {
  const [draft, setDraft] = useState<TaskDraft>(() => firstDraft(task, copyOf));
  const [firstText] = useState(draft.text);
  // What is stored: the task's file; a copy is not stored yet (it is unsaved work from the start);
  // a blank new task holds nothing to lose until something is typed.
  const [savedText, setSavedText] = useState(() => (task || !copyOf ? draft.text : ""));
  const [defaultDevice, setDefaultDevice] = useState("local");
  const [meta, setMeta] = useState<SaveMeta>(() => metaOf(task, copyOf));
  const [savedMeta, setSavedMeta] = useState<SaveMeta>(meta);
  const metaDirty = meta.folder.trim() !== savedMeta.folder || meta.tags.join(",") !== savedMeta.tags.join(",");
  const dirty = draft.text !== savedText || metaDirty;

  const release = useLeaveGuard(dirty, "Leave without saving? Your changes to this task will be lost.");
  const device = draft.value && typeof draft.value.device === "string" && draft.value.device ? draft.value.device : defaultDevice;
  const validation = useValidation(draft.text, device);

  useEffect(() => {
    api
      .settings()
      .then((s) => setDefaultDevice(s.default_device || "local"))
      .catch(() => {});
  }, []);

  // A blank new task nobody has touched: no problems shown until the person types or presses Create.
  const blank = !task && !copyOf && draft.text === firstText;
  const { issues, idle, banner, notice, saving, save: saveWith } = useFileSave(validation, blank);

  const save = () =>
    saveWith(async () => {
      const text = draft.text;
      const saved = task ? await api.replaceTask(task.id, text, meta) : await api.createTask(text, true, meta);
      setSavedText(text);
      const kept = metaOf(saved);
      setMeta(kept);
      setSavedMeta(kept);
      release();
      onSaved(saved);
      const w: Issue[] = saved.warnings;
      return w.length ? `Saved, with ${w.length} ${w.length === 1 ? "warning" : "warnings"}.` : "Saved.";
    });

  const e = issues.errors.length;

  // Run to here / run this step: a try of the file as it is now; its results stand on the cards
  // while the file is that text.
  const t = useTry();
  const [ran, setRan] = useState({ text: "", title: "" });
  const [runError, setRunError] = useState("");
  const [starting, setStarting] = useState(false);
  const stale = t.tryId !== null && ran.text !== draft.text;
  const runNote = starting || t.tried.runningNow ? "a run of this task file is under way" : e > 0 ? "fix the problems in the file first" : !draft.value ? "the file is not JSON" : "";
  const runStep = async (path: string, how: "until" | "only") => {
    if (!draft.value || runNote) return;
    setStarting(true);
    setRunError("");
    try {
      const run = await api.tryDraft(draft.value, device, how === "until" ? { until: path } : { only: path });
      setRan({ text: draft.text, title: how === "until" ? `Run to ${path}` : `Run of ${path}` });
      t.setTryId(run.id);
    } catch (err) {
      setRunError(errorText(err));
    } finally {
      setStarting(false);
    }
  };

  return (
    <div class="task-editor" data-testid="task-editor">
      <EditorBar
        validation={validation}
        idle={idle ? "new task: name it and add steps" : undefined}
        errors={e}
        dirty={dirty}
        notice={notice}
        onDiscard={
          task
            ? () => {
                setDraft(draftOf(task.definition as Obj));
                setMeta(savedMeta);
              }
            : undefined
        }
        onSave={() => void save()}
        saving={saving}
        saveLabel={task ? "Save" : "Create task"}
        canSave={dirty || !task}
        saveTestId="save-task"
      />
      {banner && (
        <div class="banner banner-error" role="alert" data-testid="editor-banner">
          {banner}
        </div>
      )}
      {runError && (
        <div class="banner banner-error" role="alert" data-testid="run-step-error">
          {runError}
        </div>
      )}
      <TaskMetaFields meta={meta} onMeta={setMeta} stored={!!task} />
      {task && <NotifySettings key={task.id} task={task} />}
      <TryPanel t={t} title={ran.title} staleNote={stale ? "the file changed since; run again to see its steps on the cards" : undefined} openImage={openImage} />
      <TaskFileEditor
        draft={draft}
        onChange={setDraft}
        issues={issues}
        devices={devices}
        defaultDevice={defaultDevice}
        results={stale ? undefined : t.results}
        runStep={(path, how) => void runStep(path, how)}
        runNote={runNote}
      />
    </div>
  );
}
