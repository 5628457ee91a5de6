// The memory pages (docs/console-api.md "Memory"): the sidebar and, by path, the 🧠 experience
// library with its audit (`/memory`), the 🎬 action library (`/memory/actions`), one action in the
// step editor (`/memory/actions/ID`) and a new one (`/memory/actions/new`).
import { useState } from "preact/hooks";
import { useDevices } from "../../hooks/useDevices";
import { Lightbox } from "../Lightbox";
import { PageNav, SideLink, UserFoot } from "../PageNav";
import { Sidebar } from "../Sidebar";
import { ActionList } from "./ActionList";
import { ActionPage } from "./ActionPage";
import { Experiences } from "./Experiences";

/** The page a path names. */
function route(path: string): { page: "experiences" | "actions" | "action"; id?: string } {
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[1] !== "actions") return { page: "experiences" };
  return parts[2] ? { page: "action", id: parts[2] } : { page: "actions" };
}

/** The memory area. */
export function MemoryArea({ path, username, onLoggedOut }: { path: string; username: string; onLoggedOut: () => void }) {
  const { devices } = useDevices();
  const [lightbox, setLightbox] = useState<{ src: string; alt: string } | null>(null);
  const r = route(path);
  const openImage = (src: string, alt: string) => setLightbox({ src, alt });
  return (
    <div class="console tasks-area">
      <Sidebar>
        <PageNav current="memory" />
        <nav class="side-links" aria-label="Memory pages">
          <SideLink href="/memory" on={r.page === "experiences"} label="🧠 Experiences" testId="nav-experiences" />
          <SideLink href="/memory/actions" on={r.page === "actions" || (r.page === "action" && r.id !== "new")} label="🎬 Actions" testId="nav-actions" />
          <SideLink href="/memory/actions/new" on={r.page === "action" && r.id === "new"} label="+ New action" testId="nav-new-action" />
        </nav>
        <p class="muted small side-note">
          deft learns from the runs that worked: recipes in words (experiences) and named step lists (actions), recalled into the prompt of similar tasks.
        </p>
        <UserFoot username={username} onLoggedOut={onLoggedOut} />
      </Sidebar>
      <main class="tasks-main">
        {r.page === "experiences" && <Experiences />}
        {r.page === "actions" && <ActionList />}
        {r.page === "action" && <ActionPage key={r.id} id={r.id === "new" ? null : r.id!} devices={devices} openImage={openImage} />}
      </main>
      {lightbox && <Lightbox src={lightbox.src} alt={lightbox.alt} onClose={() => setLightbox(null)} />}
    </div>
  );
}
