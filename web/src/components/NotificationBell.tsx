// The bell of every page's top bar: the unread count (live, from the page's feed), and a panel of
// the newest notifications — newest first, unread marked, each a link to what it is about, mark one
// or all read — with the button that asks the browser's permission to show them as system
// notifications. Escape or a click outside closes the panel and gives the focus back to the bell.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { browserNotificationsSupported, routeOf, setUnread, useNotificationFeed } from "../notifications";
import { navigate } from "../router";
import type { Notification as Notice } from "../types";

function permissionNow(): string {
  return browserNotificationsSupported() ? window.Notification.permission : "unsupported";
}

/** The bell and its panel. */
export function NotificationBell() {
  const feed = useNotificationFeed();
  const [open, setOpen] = useState(false);
  const [items, setItems] = useState<Notice[] | null>(null);
  const [error, setError] = useState("");
  const [permission, setPermission] = useState(permissionNow);
  const bell = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);

  const load = async () => {
    try {
      const list = await api.notifications();
      setItems(list.items);
      setUnread(list.unread_count);
      setError("");
    } catch (e) {
      setError(errorText(e));
    }
  };

  useEffect(() => {
    if (open) void load();
  }, [open, feed.arrived]);

  const close = () => {
    setOpen(false);
    bell.current?.focus();
  };

  useEffect(() => {
    if (!open) return;
    panel.current?.querySelector<HTMLElement>("button, a")?.focus();
    const key = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      e.stopPropagation();
      close();
    };
    const click = (e: MouseEvent) => {
      if (!(e.target as Element).closest(".notif-wrap")) setOpen(false);
    };
    document.addEventListener("keydown", key, true);
    document.addEventListener("mousedown", click);
    return () => {
      document.removeEventListener("keydown", key, true);
      document.removeEventListener("mousedown", click);
    };
  }, [open]);

  const markRead = async (n: Notice) => {
    if (n.read) return;
    try {
      setUnread((await api.readNotification(n.id)).unread_count);
      setItems((list) => list?.map((i) => (i.id === n.id ? { ...i, read: true } : i)) ?? null);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const follow = (n: Notice) => {
    void markRead(n);
    setOpen(false);
    navigate(routeOf(n));
  };
  const readAll = async () => {
    try {
      setUnread((await api.readAllNotifications()).unread_count);
      setItems((list) => list?.map((i) => ({ ...i, read: true })) ?? null);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const allow = async () => {
    if (!browserNotificationsSupported()) return;
    setPermission(await window.Notification.requestPermission());
  };

  const count = feed.unread;
  const label = count ? `Notifications, ${count} unread` : "Notifications";
  return (
    <div class="notif-wrap">
      <button
        ref={bell}
        type="button"
        class="btn btn-ghost btn-small notif-bell"
        aria-label={label}
        title={label}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => (open ? close() : setOpen(true))}
        data-testid="notif-bell"
      >
        <span aria-hidden="true">🔔</span>
        {count > 0 && (
          <span class="notif-count" data-testid="notif-count">
            {count > 99 ? "99+" : count}
          </span>
        )}
      </button>
      {open && (
        <div ref={panel} class="notif-panel" role="dialog" aria-label="Notifications" data-testid="notif-panel">
          <div class="notif-head">
            <strong>Notifications</strong>
            <button type="button" class="btn btn-ghost btn-small" onClick={() => void readAll()} disabled={count === 0} data-testid="notif-read-all">
              Mark all read
            </button>
          </div>
          {permission === "default" && (
            <button type="button" class="btn btn-small notif-allow" onClick={() => void allow()} data-testid="notif-allow">
              Allow browser notifications
            </button>
          )}
          {permission === "denied" && <p class="muted small">Browser notifications are blocked for this site (the browser's site settings allow them again).</p>}
          {error && (
            <div class="banner banner-error" role="alert">
              {error}
            </div>
          )}
          {items === null && !error && <p class="muted small">Loading…</p>}
          {items?.length === 0 && <p class="muted small">Nothing yet: failed task runs and the notify steps you ask for show here.</p>}
          <ul class="notif-list">
            {items?.map((n) => (
              <li key={n.id} class={n.read ? `notif notif-${n.level}` : `notif notif-${n.level} notif-unread`} data-testid="notif-item">
                <a
                  href={routeOf(n)}
                  onClick={(e) => {
                    e.preventDefault();
                    follow(n);
                  }}
                >
                  <span class="notif-title">
                    {!n.read && <span class="notif-dot" aria-label="unread" />}
                    {n.title}
                  </span>
                  {n.body && <span class="notif-body">{n.body}</span>}
                  <span class="muted small">{new Date(n.created_at).toLocaleString()}</span>
                </a>
                {!n.read && (
                  <button type="button" class="btn btn-ghost btn-small" aria-label={`Mark "${n.title}" read`} onClick={() => void markRead(n)} data-testid="notif-read">
                    ✓
                  </button>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
