// The Tasks pages: the sidebar (the runs in progress, links) and, by path, the task list
// (`/tasks`), a new task (`/tasks/new`), one task with its runs, steps and schedules
// (`/tasks/ID[/edit|/schedules]`), every run (`/task-runs`) and one run (`/task-runs/ID`).
import { useState } from "preact/hooks";
import { useDevices } from "../../hooks/useDevices";
import { Lightbox } from "../Lightbox";
import { PageNav, SideLink, UserFoot } from "../PageNav";
import { Sidebar } from "../Sidebar";
import { RunningMonitor } from "./RunningMonitor";
import { RunsPage } from "./RunsPage";
import { TaskList } from "./TaskList";
import { TaskPage } from "./TaskPage";
import { TaskRunPage } from "./TaskRunPage";

/** What the pages share: the devices, and the image viewer. */
export interface AreaProps {
  devices: ReturnType<typeof useDevices>["devices"];
  reloadDevices: () => Promise<void>;
  openImage: (src: string, alt: string) => void;
}

/** The page a path names. */
function route(path: string): { page: "list" | "new" | "task" | "runs" | "run"; id?: string; tab?: string } {
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "task-runs") return parts[1] ? { page: "run", id: parts[1] } : { page: "runs" };
  if (!parts[1]) return { page: "list" };
  if (parts[1] === "new" && parts.length === 2) return { page: "new" };
  return { page: "task", id: parts[1], tab: parts[2] ?? "runs" };
}

/** The Tasks area. */
export function TasksArea({ path, username, onLoggedOut }: { path: string; username: string; onLoggedOut: () => void }) {
  const { devices, reload } = useDevices();
  const [lightbox, setLightbox] = useState<{ src: string; alt: string } | null>(null);
  const r = route(path);
  const shared: AreaProps = { devices, reloadDevices: reload, openImage: (src, alt) => setLightbox({ src, alt }) };
  let page;
  switch (r.page) {
    case "list":
      page = <TaskList {...shared} />;
      break;
    case "new":
      page = <TaskPage key="new" {...shared} id={null} tab="edit" />;
      break;
    case "task":
      page = <TaskPage key={r.id} {...shared} id={r.id!} tab={r.tab!} />;
      break;
    case "runs":
      page = <RunsPage {...shared} />;
      break;
    case "run":
      page = <TaskRunPage key={r.id} {...shared} runId={r.id!} />;
      break;
  }
  return (
    <div class="console tasks-area">
      <Sidebar>
        <PageNav current="tasks" />
        <nav class="side-links" aria-label="Tasks pages">
          <SideLink href="/tasks" on={r.page === "list"} label="All tasks" />
          <SideLink href="/task-runs" on={r.page === "runs"} label="All runs" testId="nav-runs" />
          <SideLink href="/tasks/new" on={r.page === "new"} label="+ New task" testId="nav-new-task" />
        </nav>
        <RunningMonitor current={r.page === "run" ? r.id : undefined} />
        <UserFoot username={username} onLoggedOut={onLoggedOut} />
      </Sidebar>
      <main class="tasks-main">{page}</main>
      {lightbox && <Lightbox src={lightbox.src} alt={lightbox.alt} onClose={() => setLightbox(null)} />}
    </div>
  );
}
