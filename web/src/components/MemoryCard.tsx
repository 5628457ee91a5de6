// The memory's pseudo-cards (seed 001 §4.2, §5.3): what was recalled into a run's prompt, and
// what distilling saved, merged or dropped after it — each item with its score or reason.
import type { MemoryNote } from "../types";

const ICON: Record<string, string> = { experience: "🧠", action: "🎬" };

/** One card. */
export function MemoryCard({ note }: { note: MemoryNote }) {
  return (
    <div class={`memory-card memory-${note.outcome}`} data-testid="memory-card" data-kind={note.kind} data-outcome={note.outcome}>
      <div class="memory-note">
        <span aria-hidden="true">{ICON[note.kind] ?? "🧠"}</span> {note.note}
      </div>
      {note.items.length > 0 && (
        <ul class="memory-items">
          {note.items.map((item, i) => (
            <li key={item.id ?? `i${i}`}>
              <span class="memory-title">{item.title}</span>
              {item.score != null && <span class="muted small"> · {item.score.toFixed(2)}</span>}
              {item.reason && <span class="muted small"> — {item.reason}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The cards of one phase: recalled before the steps, the rest after the answer. */
export function MemoryCards({ notes, recalled }: { notes: MemoryNote[]; recalled: boolean }) {
  const shown = notes.filter((n) => (n.outcome === "recalled") === recalled);
  if (shown.length === 0) return null;
  return (
    <div class="memory-cards">
      {shown.map((n, i) => (
        <MemoryCard key={`${n.kind}-${n.outcome}-${i}`} note={n} />
      ))}
    </div>
  );
}
