// Whether the one agent run waits for a person's approval, seen from every page of every tab: the
// run slot's state (`GET /api/agent/run`, its `pending_confirm`) asked every 3 s while a page
// shows, and at once whenever a tab learns that an approval was asked or answered (its own stream's
// `confirm` / `confirmed` / `done`, or an answer it sent) — told to the other tabs of this browser
// through a BroadcastChannel. While one waits, the tab's title says so and, if the person allowed
// notifications, the browser shows one (once per question).
import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import type { RunInfo, RunMode } from "./types";

/** A question a run waits on. */
export interface PendingApproval {
  runId: string;
  mode: RunMode;
  conversation: string;
  device: string;
  callId: string;
  tool: string;
  reason: string;
}

/** How often the slot is asked while nothing told this tab of a change. */
const POLL_MS = 3000;
/** The channel the tabs of this browser tell each other on. */
const CHANNEL = "deft-approvals";
/** The title's mark while a question waits. */
const TITLE_MARK = "⏸ Approval needed · ";

let current: PendingApproval | null = null;
const listeners = new Set<(p: PendingApproval | null) => void>();
let timer: ReturnType<typeof setTimeout> | undefined;
let channel: BroadcastChannel | null = null;
let asking = false;
let again = false;
/** The questions this tab has notified of already. */
const notified = new Set<string>();

/** The question of a run, if it waits on one. */
export function pendingOf(run: RunInfo | null): PendingApproval | null {
  const q = run && run.status === "running" ? run.pending_confirm : null;
  if (!run || !q) return null;
  return { runId: run.run_id, mode: run.mode, conversation: run.conversation, device: run.device, callId: q.call_id, tool: q.tool, reason: q.reason };
}

/** The tab's title with (or without) the mark. */
export function titleFor(base: string, p: PendingApproval | null): string {
  const plain = base.startsWith(TITLE_MARK) ? base.slice(TITLE_MARK.length) : base;
  return p ? `${TITLE_MARK}${plain}` : plain;
}

function publish(next: PendingApproval | null): void {
  const same = next?.callId === current?.callId && next?.runId === current?.runId;
  current = next;
  document.title = titleFor(document.title, next);
  if (same) return;
  for (const l of listeners) l(next);
  if (next) notify(next);
}

/** A browser notification, when the person allowed them, once per question. */
function notify(p: PendingApproval): void {
  if (notified.has(p.callId) || typeof Notification === "undefined" || Notification.permission !== "granted") return;
  notified.add(p.callId);
  try {
    const n = new Notification("deft: a run waits for your approval", {
      body: `${p.tool} on ${p.device}${p.reason ? `: ${p.reason}` : ""}`,
      // Several tabs notify once: the browser shows one per tag.
      tag: `deft-approval-${p.callId}`,
    });
    n.onclick = () => {
      window.focus();
      n.close();
    };
  } catch {
    // A browser that takes notifications only from a service worker: the title still says it.
  }
}

/** Asks the slot now (one request at a time; a change told meanwhile asks once more). */
async function ask(): Promise<void> {
  if (asking) {
    again = true;
    return;
  }
  asking = true;
  try {
    publish(pendingOf((await api.activeRun()).run));
  } catch {
    // The server cannot be asked: what was known stands until it can.
  } finally {
    asking = false;
  }
  if (again) {
    again = false;
    await ask();
  }
}

function schedule(): void {
  clearTimeout(timer);
  timer = setTimeout(() => {
    void ask().finally(() => {
      if (listeners.size) schedule();
    });
  }, POLL_MS);
}

/** Something about approvals changed (a `confirm`, `confirmed` or `done` this tab saw, an answer
 * it sent): this tab and the others ask at once. */
export function approvalsChanged(): void {
  void ask();
  channel?.postMessage("changed");
}

function start(): void {
  if (typeof BroadcastChannel !== "undefined") {
    channel = new BroadcastChannel(CHANNEL);
    channel.onmessage = () => void ask();
  }
  document.title = titleFor(document.title, current);
  void ask();
  schedule();
}

/** No page shows the links (logged out): no more asking, and the title without the mark. What
 * was known stays for the next page, which asks again at once. */
function stop(): void {
  clearTimeout(timer);
  channel?.close();
  channel = null;
  document.title = titleFor(document.title, null);
}

/** The question the run waits on now, if any (the page links show it). */
export function usePendingApproval(): PendingApproval | null {
  const [p, setP] = useState<PendingApproval | null>(current);
  useEffect(() => {
    listeners.add(setP);
    if (listeners.size === 1) start();
    setP(current);
    return () => {
      listeners.delete(setP);
      if (listeners.size === 0) stop();
    };
  }, []);
  return p;
}

/** Whether the browser could notify, and the person has not decided yet. */
export function canAskToNotify(): boolean {
  return typeof Notification !== "undefined" && Notification.permission === "default";
}

/** Asks the person to allow notifications; true when they did. */
export async function askToNotify(): Promise<boolean> {
  if (typeof Notification === "undefined") return false;
  return (await Notification.requestPermission()) === "granted";
}
