// The console's pages, beside the brand (the chat, designer mode and the Tasks pages), and the
// sidebar's foot.
import { api } from "../api";
import { Link } from "../router";

/** The pages, in the order of the links. */
const PAGES = [
  { id: "chat", href: "/", label: "💬 Chat", title: "Chat with the agent" },
  { id: "designer", href: "/designer", label: "🧭 AI builds a task", title: "Describe an automation; the AI explores the device and drafts a task" },
  { id: "tasks", href: "/tasks", label: "🗂 Tasks", title: "Tasks, their schedules and runs" },
] as const;

/** The page links; `current` is marked for screen readers and styled. */
export function PageNav({ current }: { current: (typeof PAGES)[number]["id"] }) {
  return (
    <nav class="page-nav" aria-label="Pages">
      {PAGES.map((p) => (
        <Link
          key={p.id}
          href={p.href}
          class={current === p.id ? "page-link page-link-on" : "page-link"}
          aria-current={current === p.id ? "page" : undefined}
          title={p.title}
          data-testid={`nav-${p.id}`}
        >
          {p.label}
        </Link>
      ))}
    </nav>
  );
}

/** Who is logged in, and Log out (the foot of each page's sidebar). */
export function UserFoot({ username, onLoggedOut, beforeLogout }: { username: string; onLoggedOut: () => void; beforeLogout?: () => void }) {
  const logout = async () => {
    try {
      await api.logout();
    } catch {
      // The session is gone either way.
    }
    beforeLogout?.();
    onLoggedOut();
  };
  return (
    <div class="sidebar-foot">
      <span class="muted small">{username}</span>
      <button class="btn btn-ghost btn-small" onClick={() => void logout()}>
        Log out
      </button>
    </div>
  );
}
