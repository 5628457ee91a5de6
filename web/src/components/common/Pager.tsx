// Previous / next through a paged list, with the range shown (the task list, the memory libraries).
/** Previous / next through a paged list. */
export function Pager({
  offset,
  total,
  size,
  onOffset,
  labels = ["← Previous", "Next →"],
}: {
  offset: number;
  total: number;
  size: number;
  onOffset: (o: number) => void;
  labels?: [string, string];
}) {
  if (total <= size && offset === 0) return null;
  const last = Math.min(total, offset + size);
  return (
    <nav class="pager" aria-label="Pages">
      <button class="btn btn-small" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - size))} data-testid="pager-prev">
        {labels[0]}
      </button>
      <span class="muted small" data-testid="pager-range">
        {total === 0 ? 0 : offset + 1}–{last} of {total}
      </span>
      <button class="btn btn-small" disabled={last >= total} onClick={() => onOffset(offset + size)} data-testid="pager-next">
        {labels[1]}
      </button>
    </nav>
  );
}
