// Small text formatters shared by the views.
import type { Usage } from "./types";

const nf = new Intl.NumberFormat("en-US");

/** 3606 → "3,606". */
export function num(n: number | undefined | null): string {
  return nf.format(n ?? 0);
}

/** The token footer of one message: `🪙 3,606 tokens (↑3,480 ↓126 · 1 call)`. */
export function tokenFooter(u: Usage): string {
  const calls = `${num(u.calls)} ${u.calls === 1 ? "call" : "calls"}`;
  return `🪙 ${num(u.total_tokens)} tokens (↑${num(u.prompt_tokens)} ↓${num(u.completion_tokens)} · ${calls})`;
}

/** Adds two usages. */
export function addUsage(a: Usage | undefined | null, b: Usage | undefined | null): Usage {
  return {
    prompt_tokens: (a?.prompt_tokens ?? 0) + (b?.prompt_tokens ?? 0),
    completion_tokens: (a?.completion_tokens ?? 0) + (b?.completion_tokens ?? 0),
    total_tokens: (a?.total_tokens ?? 0) + (b?.total_tokens ?? 0),
    calls: (a?.calls ?? 0) + (b?.calls ?? 0),
  };
}

/** The title prefix the server gives a designer run's conversation (docs/console-api.md
 * "Designer mode"). */
export const DESIGNER_TITLE = "🧭 ";

/** Whether a conversation is a designer run's exploration (listed on the 🧭 page, not the chat's). */
export function isDesignerConversation(c: { title: string }): boolean {
  return c.title.startsWith(DESIGNER_TITLE);
}

/** The first 8 characters of an id. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** Milliseconds as "850 ms" / "2.4 s" / "1 min 5 s". */
export function duration(ms: number | undefined): string {
  if (ms === undefined || ms === null) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** A tool call's arguments on one line, cut to `max` characters. */
export function argsLine(args: unknown, max = 160): string {
  let s: string;
  try {
    s = typeof args === "string" ? args : JSON.stringify(args ?? {});
  } catch {
    s = String(args);
  }
  if (s === "{}") return "";
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** An RFC 3339 time as a Date; null when absent or unreadable. */
function timeOf(iso: string | undefined | null): Date | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** An RFC 3339 time as a short local time. */
export function when(iso: string | undefined): string {
  const d = timeOf(iso);
  if (!d) return "";
  const now = new Date();
  const sameDay = d.toDateString() === now.toDateString();
  return sameDay
    ? d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : d.toLocaleDateString([], { month: "short", day: "numeric" });
}

/** Human words for a run status. */
export function statusLabel(status: string | undefined): string {
  switch (status) {
    case "running":
      return "running";
    case "completed":
      return "completed";
    case "failed":
      return "failed";
    case "stopped":
      return "stopped";
    case "timeout":
      return "timed out";
    case "max_steps":
      return "step limit reached";
    default:
      return status ?? "";
  }
}

/** An RFC 3339 time as a full local date and time ("Dec 4, 2026, 03:47:00"). */
export function dateTime(iso: string | undefined | null): string {
  const d = timeOf(iso);
  if (!d) return "";
  return d.toLocaleString([], { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** An RFC 3339 time as the clock showed it, to the second ("03:47:05"); on another day, with
 * its date as `dateTime` writes it. */
export function clock(iso: string | undefined | null): string {
  const d = timeOf(iso);
  if (!d) return "";
  if (d.toDateString() !== new Date().toDateString()) return dateTime(iso);
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** The time zone of this browser (an IANA name such as "Europe/Berlin"; "UTC" when it cannot
 * say). */
export function viewerZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** An RFC 3339 time as the clock shows it in `zone` ("Dec 4, 09:00"); 24-hour, as the server's
 * schedule words are. A zone the browser does not know falls back to its own. */
export function zonedTime(iso: string | undefined | null, zone: string): string {
  const d = timeOf(iso);
  if (!d) return "";
  const opts: Intl.DateTimeFormatOptions = { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
  try {
    return d.toLocaleString([], { ...opts, timeZone: zone });
  } catch {
    return d.toLocaleString([], opts);
  }
}

/** How far an RFC 3339 time is from `now`: "in 5 min", "3 h ago", "just now". */
export function relative(iso: string | undefined | null, now = Date.now()): string {
  const d = timeOf(iso);
  if (!d) return "";
  const t = d.getTime();
  const s = Math.round((t - now) / 1000);
  const a = Math.abs(s);
  if (a < 5) return "just now";
  const [n, unit] =
    a < 60 ? [a, "s"] : a < 3600 ? [Math.round(a / 60), "min"] : a < 86_400 ? [Math.round(a / 3600), "h"] : [Math.round(a / 86_400), "d"];
  return s > 0 ? `in ${n} ${unit}` : `${n} ${unit} ago`;
}

/** The time from `start` to `end` (or to now while it runs), as `duration` writes it. */
export function span(start: string | undefined | null, end: string | undefined | null, now = Date.now()): string {
  const a = timeOf(start);
  const b = end ? timeOf(end) : new Date(now);
  if (!a || !b) return "";
  return duration(Math.max(0, b.getTime() - a.getTime()));
}

/** Words for a task run's status. */
export function taskStatusLabel(status: string | undefined): string {
  return status === "timed_out" ? "timed out" : (status ?? "");
}
