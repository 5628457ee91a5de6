// One task: its name, device and on/off switch, Run now, Duplicate, Export and Delete, and four
// tabs — its runs (`/tasks/ID`), its steps in the editor (`/tasks/ID/edit`), its schedules
// (`/tasks/ID/schedules`) and its versions (`/tasks/ID/history`). A new task (`/tasks/new`, `?from=ID` to start from a copy) is the
// editor alone until it is created.
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, errorText } from "../../api";
import { Link, navigate, queryParam } from "../../router";
import type { TaskDetail } from "../../types";
import { ErrorBanner } from "../FormFields";
import { RunDialog } from "./RunDialog";
import { RunHistory } from "./RunHistory";
import { Schedules } from "./Schedules";
import { TaskHistory } from "./TaskHistory";
import { exportUrl } from "../../task-versions";
import { TaskEditor } from "./TaskEditor";
import type { AreaProps } from "./TasksArea";
import { MenuButton } from "../Sidebar";

/** Props of the page. */
export interface TaskPageProps extends AreaProps {
  /** The task's id or name; null: a new task. */
  id: string | null;
  /** `runs`, `edit` or `schedules`. */
  tab: string;
}

/** The page. */
export function TaskPage({ id, tab, devices, openImage }: TaskPageProps) {
  const [task, setTask] = useState<TaskDetail | null>(null);
  const [copyOf, setCopyOf] = useState<TaskDetail | null | undefined>(id ? null : undefined);
  const [error, setError] = useState("");
  const [running, setRunning] = useState(false);

  const load = useCallback(async () => {
    if (!id) return;
    try {
      setTask(await api.task(id));
    } catch (e) {
      setError(errorText(e));
    }
  }, [id]);
  useEffect(() => {
    void load();
  }, [load]);

  // Duplicate: the new task starts from a copy of another's file.
  useEffect(() => {
    if (id) return;
    const from = queryParam("from");
    if (!from) return setCopyOf(null);
    api
      .task(from)
      .then(setCopyOf)
      .catch((e) => {
        setError(errorText(e));
        setCopyOf(null);
      });
  }, [id]);

  if (!id) {
    return (
      <div class="page" data-testid="task-page">
        <header class="topbar">
          <MenuButton />
          <div class="topbar-title">
            <h1 title={copyOf ? `New task from “${copyOf.name}”` : undefined}>{copyOf ? `New task from “${copyOf.name}”` : "New task"}</h1>
          </div>
        </header>
        <ErrorBanner message={error} onDismiss={() => setError("")} />
        <div class="page-body">
          {copyOf !== undefined && (
            <TaskEditor
              task={null}
              copyOf={copyOf}
              devices={devices}
              openImage={openImage}
              onSaved={(t) => navigate(`/tasks/${encodeURIComponent(t.id)}/edit`, { replace: true })}
            />
          )}
        </div>
      </div>
    );
  }

  const base = `/tasks/${encodeURIComponent(id)}`;
  const toggle = async () => {
    if (!task) return;
    try {
      setTask(await api.setTaskEnabled(task.id, !task.enabled));
    } catch (e) {
      setError(errorText(e));
    }
  };
  const remove = async () => {
    if (!task || !window.confirm(`Delete the task “${task.name}” and its schedules? Its run history stays.`)) return;
    try {
      await api.deleteTask(task.id);
      navigate("/tasks");
    } catch (e) {
      setError(errorText(e));
    }
  };
  const tabs = [
    ["runs", "Runs", base],
    ["edit", "Steps", `${base}/edit`],
    ["schedules", `Schedules${task ? ` (${task.schedules.length})` : ""}`, `${base}/schedules`],
    ["history", `History${task ? ` (v${task.version})` : ""}`, `${base}/history`],
  ] as const;

  return (
    <div class="page" data-testid="task-page">
      <header class="topbar">
        <MenuButton />
        <div class="topbar-title">
          <h1 data-testid="task-title" title={task?.name}>
            {task?.name ?? (error ? "Task not found" : "…")}
          </h1>
          {task && <span class="muted small mono">on {task.device}</span>}
        </div>
        {task && (
          <div class="topbar-tools">
            <label class="check small" title="Whether its schedules fire">
              <input type="checkbox" role="switch" class="switch" checked={task.enabled} onChange={() => void toggle()} data-testid="task-enabled" />
              schedules {task.enabled ? "on" : "off"}
            </label>
            <button class="btn btn-primary btn-small" onClick={() => setRunning(true)} data-testid="run-now">
              ▶ Run now
            </button>
            <button class="btn btn-ghost btn-small" onClick={() => navigate(`/tasks/new?from=${encodeURIComponent(task.id)}`)}>
              Duplicate
            </button>
            <a class="btn btn-ghost btn-small" href={exportUrl({ task: task.id })} download data-testid="export-task">
              Export
            </a>
            <button class="btn btn-ghost btn-small btn-danger-text" onClick={() => void remove()}>
              Delete
            </button>
          </div>
        )}
      </header>
      <ErrorBanner message={error} onDismiss={() => setError("")} />
      {task && (
        <>
          <nav class="tabs page-tabs" aria-label="Task">
            {tabs.map(([key, label, href]) => (
              <Link key={key} href={href} class={tab === key ? "tab tab-on" : "tab"} aria-current={tab === key ? "page" : undefined} data-testid={`task-tab-${key}`}>
                {label}
              </Link>
            ))}
          </nav>
          <div class="page-body">
            {tab === "edit" && <TaskEditor task={task} devices={devices} openImage={openImage} onSaved={setTask} />}
            {tab === "schedules" && <Schedules task={task} onChanged={load} />}
            {tab === "history" && <TaskHistory task={task} onRestored={setTask} />}
            {tab !== "edit" && tab !== "schedules" && tab !== "history" && <RunHistory task={task.id} />}
          </div>
        </>
      )}
      {running && task && <RunDialog taskId={task.id} devices={devices} onClose={() => setRunning(false)} />}
    </div>
  );
}
