// The notification feed of the page: one EventSource to /api/notifications/stream shared by every
// bell, the unread count they show, and — once the person allowed them — a browser notification
// for each new one (a click focuses the console at its link).
import { useEffect, useState } from "preact/hooks";
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
let source: EventSource | null = null;

function update(next: Partial<FeedState>): void {
  state = { ...state, ...next };
  for (const l of listeners) l();
}

/** Sets the unread count after this page read or marked some (the feed's next count wins). */
export function setUnread(unread: number): void {
  update({ unread });
}

function data(e: Event): Record<string, unknown> {
  try {
    return JSON.parse((e as MessageEvent).data as string) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function connect(): void {
  if (source) return;
  source = new EventSource("/api/notifications/stream", { withCredentials: true });
  source.addEventListener("unread", (e) => {
    const d = data(e);
    if (typeof d.unread_count === "number") update({ unread: d.unread_count });
  });
  source.addEventListener("notification", (e) => {
    const d = data(e);
    const unread = typeof d.unread_count === "number" ? d.unread_count : state.unread + 1;
    update({ unread, arrived: state.arrived + 1 });
    if (d.notification) showInBrowser(d.notification as Notice);
  });
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
