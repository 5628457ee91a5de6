// The run history's pages: ← Previous / Next → by cursor (the cursors of the pages before are kept in
// the URL, so Previous goes back exactly), the range shown out of the total, and the page size.
import { PAGE_SIZES, firstPage, nextPage, previousPage, type RunView } from "../../run-query";

/** Props of the pager. */
export interface RunPagerProps {
  view: RunView;
  /** How many runs the filters select, and how many this page shows. */
  total: number;
  shown: number;
  /** Where the next page starts (null: this is the last). */
  next: string | null;
  onView: (v: RunView) => void;
}

/** The bar under the table. */
export function RunPager({ view, total, shown, next, onView }: RunPagerProps) {
  const start = view.back.length * view.limit;
  const first = !view.cursor;
  return (
    <nav class="pager" aria-label="Pages of runs">
      <button class="btn btn-small" disabled={first} onClick={() => onView(previousPage(view))} data-testid="pager-prev">
        ← Previous
      </button>
      <span class="muted small" data-testid="pager-range">
        {shown === 0 ? `0 of ${total}` : `${start + 1}–${start + shown} of ${total}`}
      </span>
      <button class="btn btn-small" disabled={!next} onClick={() => next && onView(nextPage(view, next))} data-testid="pager-next">
        Next →
      </button>
      <label class="inline small">
        Per page
        <select value={view.limit} onChange={(e) => onView(firstPage(view, { limit: Number(e.currentTarget.value) }))} data-testid="runs-page-size">
          {(PAGE_SIZES.includes(view.limit) ? PAGE_SIZES : [view.limit, ...PAGE_SIZES]).map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
    </nav>
  );
}
