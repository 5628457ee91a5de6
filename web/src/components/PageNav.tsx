// The head of each page's sidebar — the brand and the console's pages (the chat, designer mode,
// the Tasks pages, the memory and the fleet) —, a page's own links below it, and the sidebar's foot. The memory's link counts the experiences whose deletion the audit
// suggests, waiting for a person's decision; the chat's (or designer mode's) is marked while its
// run waits for an approval (pending-approval.ts, which also marks the tab's title).
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { askToNotify, canAskToNotify, usePendingApproval } from "../pending-approval";
import { Link } from "../router";

/** The pages, in the order of the links. */
const PAGES = [
  { id: "chat", href: "/", label: "💬 Chat", title: "Chat with the agent" },
  { id: "designer", href: "/designer", label: "🧭 AI builds a task", title: "Describe an automation; the AI explores the device and drafts a task" },
  { id: "tasks", href: "/tasks", label: "🗂 Tasks", title: "Tasks, their schedules and runs" },
  { id: "memory", href: "/memory", label: "🧠 Memory", title: "The experience and action libraries: what deft learned from runs" },
  { id: "fleet", href: "/fleet", label: "🛰 Fleet", title: "The servers sharing this database and the devices each holds" },
] as const;

/** The event that says the experiences' audit states changed (a decision, an audit's end). */
const PENDING_CHANGED = "deft-pending-changed";

/** Tells the page links to count the experiences waiting for a decision again. */
export function pendingChanged(): void {
  window.dispatchEvent(new Event(PENDING_CHANGED));
}

/** How many experiences wait for a person's decision on the audit's suggestion (asked once a
 * minute and on `pendingChanged`; 0 when the server cannot say). */
function usePendingCount(): number {
  const [n, setN] = useState(0);
  useEffect(() => {
    const ask = () =>
      void api
        .experiences({ state: "pending" }, 1, 0)
        .then((p) => setN(p.total))
        .catch(() => undefined);
    ask();
    const t = setInterval(ask, 60_000);
    window.addEventListener(PENDING_CHANGED, ask);
    return () => {
      clearInterval(t);
      window.removeEventListener(PENDING_CHANGED, ask);
    };
  }, []);
  return n;
}

/** The brand and the page links; `current` is marked for screen readers and styled. The page of
 * a run that waits for an approval (the chat's, or designer mode's) carries a mark. */
export function PageNav({ current }: { current: (typeof PAGES)[number]["id"] }) {
  const pending = usePendingCount();
  const approval = usePendingApproval();
  return (
    <>
      <div class="brand">
        <span class="brand-mark">◆</span> deft <span class="muted small">console</span>
      </div>
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
          {approval && approval.mode === p.id && (
            <span
              class="nav-badge nav-badge-alert"
              role="status"
              title={`A run waits for your approval: ${approval.tool} on ${approval.device}`}
              aria-label="a run waits for your approval"
              data-testid="approval-pending"
            >
              ⏸
            </span>
          )}
          {p.id === "memory" && pending > 0 && (
            <span class="nav-badge" title={`${pending} audit ${pending === 1 ? "suggestion waits" : "suggestions wait"} for your decision`} data-testid="memory-pending">
              {pending}
            </span>
          )}
        </Link>
      ))}
      </nav>
    </>
  );
}

/** A link of a page's own list below the page links (`on`: the page shown). */
export function SideLink({ href, on, label, testId }: { href: string; on: boolean; label: string; testId?: string }) {
  return (
    <Link href={href} class={on ? "side-link side-link-on" : "side-link"} aria-current={on ? "page" : undefined} data-testid={testId}>
      {label}
    </Link>
  );
}

/** "🔔": lets the browser notify the person when a run waits for approval (shown until they
 * decide). */
function NotifyButton() {
  const [undecided, setUndecided] = useState(canAskToNotify);
  if (!undecided) return null;
  return (
    <button
      class="btn btn-ghost btn-small"
      title="Let the browser tell you when a run waits for your approval"
      aria-label="Notify me when a run waits for my approval"
      onClick={() => void askToNotify().finally(() => setUndecided(canAskToNotify()))}
      data-testid="allow-notifications"
    >
      🔔
    </button>
  );
}

/** Who is logged in, notifications, and Log out (the foot of each page's sidebar). */
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
      <span class="grow" />
      <NotifyButton />
      <button class="btn btn-ghost btn-small" onClick={() => void logout()}>
        Log out
      </button>
    </div>
  );
}
