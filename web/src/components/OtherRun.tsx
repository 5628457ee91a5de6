// The run of the other page's mode while it holds the one run slot chats and designer runs share:
// a chip in the top bar ("● designer exploring" on the chat, "● chat running" on 🧭) and a note
// above the message box saying why sending waits, each linking to the page that shows the run.
import { Link } from "../router";
import type { RunInfo } from "../types";

/** What each page says about the other mode's run, and where that run shows. */
const SAYS = {
  designer: { chip: "designer exploring", note: "A designer run is exploring", waits: "sending waits until it ends", href: "/designer", page: "🧭 AI builds a task" },
  chat: { chip: "chat running", note: "A chat run holds the agent", waits: "exploring waits until it ends", href: "/", page: "💬 Chat" },
} as const;

/** The top bar's chip. */
export function OtherRunChip({ run }: { run: RunInfo }) {
  const s = SAYS[run.mode];
  return (
    <Link href={s.href} class="chip chip-running chip-link" title={`On ${run.device}: “${run.prompt}” — show it on ${s.page}`} data-testid="slot-other">
      <span class="pulse" aria-hidden="true" /> {s.chip}
    </Link>
  );
}

/** The note above the message box. */
export function OtherRunNote({ run }: { run: RunInfo }) {
  const s = SAYS[run.mode];
  return (
    <div class="banner banner-info" role="status" data-testid="slot-note">
      {s.note} on <span class="mono">{run.device}</span> (“{run.prompt}”): {s.waits}.{" "}
      <Link href={s.href}>Show it</Link>
    </div>
  );
}
