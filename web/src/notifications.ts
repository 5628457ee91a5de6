// The notification feed of the page: one poll of /api/notifications shared by every bell, the
// unread count they show, and — once the person allowed them — a browser notification for each
// new one (a click focuses the console at its link).
import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import { navigate } from "./router";
import type { Notification as Notice } from "./types";

/** What the bells show: the unread count, and a number that grows with each new notification (an
 * open list reloads when it changes). */
export interface FeedState {
  unread: number;
  arrived: number;
}

let state: FeedState = { unread: 0, arrived: 0 };
const listeners = new Set<() => void>();

function update(next: Partial<FeedState>): void {
  state = { ...state, ...next };
  for (const l of listeners) l();
}

/** Sets the unread count after this page read or marked some (the next poll's count wins). */
export function setUnread(unread: number): void {
  update({ unread });
}

/** How often the page asks for new notifications (4× as long while the tab is hidden). A poll,
 * not a held stream: a browser gives a server only six HTTP/1.1 connections for all its tabs, and
 * the run stream and the live view hold theirs already — a second tab with a held feed left a
 * run's start waiting for a free connection. */
const POLL_MS = 4_000;
/** How many of the newest a poll reads (more arriving between two polls only count). */
const POLL_ITEMS = 20;
let polling = false;
/** The newest notification seen: `null` before the first poll (what exists then is not new). */
let newest: string | null = null;

async function poll(): Promise<void> {
  try {
    const page = await api.notifications(POLL_ITEMS);
    const fresh: Notice[] = [];
    if (newest !== null) {
      for (const n of page.items) {
        if (n.id === newest) break;
        fresh.push(n);
      }
    }
    newest = page.items[0]?.id ?? newest ?? "";
    update({ unread: page.unread_count, arrived: state.arrived + fresh.length });
    // An approval waiting has its own system notification (pending-approval.ts: once per
    // question, whichever tab sees it first); a second one from the bell would say it twice.
    for (const n of fresh.reverse()) if (n.kind !== "approval_waiting") showInBrowser(n);
  } catch {
    // Logged out or the server away: the next poll tries again.
  }
  window.setTimeout(() => void poll(), document.hidden ? POLL_MS * 4 : POLL_MS);
}

function connect(): void {
  if (polling) return;
  polling = true;
  void poll();
}

/** The feed's state; connects the page's feed on first use. */
export function useNotificationFeed(): FeedState {
  const [now, setNow] = useState(state);
  useEffect(() => {
    connect();
    const l = () => setNow(state);
    listeners.add(l);
    l();
    return () => {
      listeners.delete(l);
    };
  }, []);
  return now;
}

/** Whether this browser can show notifications at all. */
export function browserNotificationsSupported(): boolean {
  return typeof window.Notification === "function";
}

/** The route a notification links to: the server's own console routes only. */
export function routeOf(n: Notice): string {
  return n.link.startsWith("/") && !n.link.startsWith("//") ? n.link : "/";
}

/** Shows `n` as a browser notification when the person allowed them (text only: the browser never
 * renders it as HTML). */
function showInBrowser(n: Notice): void {
  if (!browserNotificationsSupported() || window.Notification.permission !== "granted") return;
  const shown = new window.Notification(n.title, { body: n.body, tag: n.id });
  shown.onclick = () => {
    window.focus();
    navigate(routeOf(n));
    shown.close();
  };
}
