// The console's pages, beside the brand (the chat and the Tasks pages), and the sidebar's foot.
import { api } from "../api";
import { Link } from "../router";

/** The page links; `current` is marked for screen readers and styled. */
export function PageNav({ current }: { current: "chat" | "tasks" }) {
  return (
    <nav class="page-nav" aria-label="Pages">
      <Link href="/" class={current === "chat" ? "page-link page-link-on" : "page-link"} aria-current={current === "chat" ? "page" : undefined} data-testid="nav-chat">
        💬 Chat
      </Link>
      <Link href="/tasks" class={current === "tasks" ? "page-link page-link-on" : "page-link"} aria-current={current === "tasks" ? "page" : undefined} data-testid="nav-tasks">
        🗂 Tasks
      </Link>
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
