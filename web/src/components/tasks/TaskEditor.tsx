// Editing a task file: the draft in the task file editor, checked by the server's validator 400 ms
// after each change, saved with Save (or Ctrl+S) — created or replaced — and guarded: leaving with
// unsaved changes asks first.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, errorText } from "../../api";
import { useValidation } from "../../hooks/useValidation";
import { useLeaveGuard } from "../../router";
import type { Device, Issue, TaskDetail } from "../../types";
import { NO_ISSUES, type Issues } from "../steps/issues";
import { draftOf, TaskFileEditor, type TaskDraft } from "./TaskFileEditor";

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
  onSaved: (t: TaskDetail) => void;
}

/** The first draft: the stored file, a copy renamed, or a blank task. */
function firstDraft(task: TaskDetail | null, copyOf?: TaskDetail | null): TaskDraft {
  if (task) return draftOf(task.definition as Obj);
  if (copyOf) return draftOf({ ...(copyOf.definition as Obj), name: `${copyOf.name} (copy)` });
  return draftOf(BLANK);
}

/** The editor with its toolbar. */
export function TaskEditor({ task, copyOf, devices, onSaved }: TaskEditorProps) {
  const [draft, setDraft] = useState<TaskDraft>(() => firstDraft(task, copyOf));
  const [savedText, setSavedText] = useState(() => (task ? draft.text : ""));
  const [saving, setSaving] = useState(false);
  const [refused, setRefused] = useState<Issues | null>(null);
  const [banner, setBanner] = useState("");
  const [notice, setNotice] = useState("");
  const [defaultDevice, setDefaultDevice] = useState("local");
  const dirty = draft.text !== savedText;
  const release = useLeaveGuard(dirty, "Leave without saving? Your changes to this task will be lost.");
  const device = draft.value && typeof draft.value.device === "string" && draft.value.device ? draft.value.device : defaultDevice;
  const validation = useValidation(draft.text, device);

  useEffect(() => {
    api
      .settings()
      .then((s) => setDefaultDevice(s.default_device || "local"))
      .catch(() => {});
  }, []);

  // A refused save's problems show until the validator answers for a newer text.
  useEffect(() => setRefused(null), [validation.report]);
  const issues: Issues = refused ?? validation.report ?? NO_ISSUES;

  const save = async () => {
    if (saving) return;
    setSaving(true);
    setBanner("");
    setNotice("");
    const text = draft.text;
    try {
      const saved = task ? await api.replaceTask(task.id, text) : await api.createTask(text);
      setSavedText(text);
      release();
      const w: Issue[] = saved.warnings;
      setNotice(w.length ? `Saved, with ${w.length} ${w.length === 1 ? "warning" : "warnings"}.` : "Saved.");
      onSaved(saved);
    } catch (e) {
      const found = e instanceof ApiError ? e.issues : null;
      if (found) setRefused(found);
      setBanner(errorText(e));
    } finally {
      setSaving(false);
    }
  };

  // Ctrl+S (⌘S) saves.
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s") {
        e.preventDefault();
        void save();
      }
    };
    window.addEventListener("keydown", key);
    return () => window.removeEventListener("keydown", key);
  });

  const e = issues.errors.length;
  const status = validation.error
    ? `cannot check: ${validation.error}`
    : validation.checking || !validation.report
      ? "checking…"
      : e
        ? `${e} ${e === 1 ? "error" : "errors"}`
        : "valid";

  return (
    <div class="task-editor" data-testid="task-editor">
      <div class="editor-bar">
        <span class={`chip ${e ? "chip-failed" : validation.checking ? "" : "chip-success"}`} data-testid="validity" aria-live="polite">
          {e ? "✕" : validation.checking ? "…" : "✓"} {status}
        </span>
        {dirty && (
          <span class="muted small" data-testid="unsaved">
            unsaved changes
          </span>
        )}
        {notice && !dirty && (
          <span class="muted small" role="status" data-testid="saved-notice">
            {notice}
          </span>
        )}
        <span class="grow" />
        {dirty && task && (
          <button type="button" class="btn btn-ghost btn-small" onClick={() => setDraft(draftOf(task.definition as Obj))}>
            Discard changes
          </button>
        )}
        <button type="button" class="btn btn-primary" onClick={() => void save()} disabled={saving || (!dirty && !!task)} data-testid="save-task" title="Save (Ctrl+S)">
          {saving ? "Saving…" : task ? "Save" : "Create task"}
        </button>
      </div>
      {banner && (
        <div class="banner banner-error" role="alert" data-testid="editor-banner">
          {banner}
        </div>
      )}
      <TaskFileEditor draft={draft} onChange={setDraft} issues={issues} devices={devices} defaultDevice={defaultDevice} />
    </div>
  );
}
