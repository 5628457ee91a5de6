// The run history's filters: task (typed or picked from the tasks; Enter or leaving the field
// applies it), status, trigger, device and a
// started from / to date range, and on a narrow screen the sort (the table's headers are gone
// there). Each change is a new view in the URL. On a narrow screen they fold behind a
// "Filters (n)" button.
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api";
import { taskStatusLabel } from "../../format";
import { FILTER_KEYS, firstPage, readView, STATUSES, TRIGGERS, type RunView, type SortKey } from "../../run-query";

/** Props of the filters. */
export interface RunFiltersProps {
  view: RunView;
  /** Shows another view (a filter changed: back to the first page). */
  onView: (v: RunView) => void;
  /** On a task's own page: no task filter. */
  ownTask: boolean;
}

/** The names of the tasks and devices the pickers offer (asked once). */
function useChoices(ownTask: boolean): { tasks: string[]; devices: string[] } {
  const [tasks, setTasks] = useState<string[]>([]);
  const [devices, setDevices] = useState<string[]>([]);
  useEffect(() => {
    if (!ownTask) api.tasks("", 500, 0).then((p) => setTasks(p.items.map((t) => t.name)), () => {});
    api.devices().then((d) => setDevices(d.map((x) => x.id)), () => {});
  }, [ownTask]);
  return { tasks, devices };
}

/** A typed filter (offering `list`'s choices): what is typed stays while the page refreshes, and
 * Enter or leaving the field applies it. */
function TextFilter(p: { list: string; placeholder: string; value: string; onValue: (v: string) => void; testId: string }) {
  const [draft, setDraft] = useState(p.value);
  useEffect(() => setDraft(p.value), [p.value]);
  const apply = () => {
    if (draft.trim() !== p.value) p.onValue(draft.trim());
  };
  return (
    <input
      type="search"
      list={p.list}
      placeholder={p.placeholder}
      value={draft}
      onInput={(e) => setDraft(e.currentTarget.value)}
      onChange={apply}
      onKeyDown={(e) => e.key === "Enter" && apply()}
      data-testid={p.testId}
    />
  );
}

/** The bar. */
export function RunFilters({ view, onView, ownTask }: RunFiltersProps) {
  const [open, setOpen] = useState(false);
  const { tasks, devices } = useChoices(ownTask);
  // From the URL as it is now, not as rendered: a change right after another (a text field's
  // change as the next field is picked) keeps both.
  const set = (change: Partial<RunView>) => onView(firstPage(readView(window.location.search), change));
  const count = FILTER_KEYS.filter((k) => view[k] && !(ownTask && k === "task")).length;
  const clear = () => set({ task: ownTask ? view.task : "", status: "", trigger: "", device: "", from: "", to: "" });
  return (
    <div class="run-filters-wrap">
      <button type="button" class="btn btn-small filters-toggle" aria-expanded={open} aria-controls="run-filters" onClick={() => setOpen(!open)} data-testid="runs-filters-toggle">
        Filters ({count})
      </button>
      <div id="run-filters" class={`filters run-filters${open ? " open" : ""}`} role="group" aria-label="Filter the runs" data-testid="runs-filters">
        {!ownTask && (
          <label class="inline small">
            Task
            <TextFilter list="run-filter-tasks" placeholder="any task" value={view.task} onValue={(task) => set({ task })} testId="runs-task" />
            <datalist id="run-filter-tasks">
              {tasks.map((t) => (
                <option key={t} value={t} />
              ))}
            </datalist>
          </label>
        )}
        <label class="inline small">
          Status
          <select value={view.status} onChange={(e) => set({ status: e.currentTarget.value })} data-testid="runs-status">
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {taskStatusLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label class="inline small">
          Trigger
          <select value={view.trigger} onChange={(e) => set({ trigger: e.currentTarget.value })} data-testid="runs-trigger">
            <option value="">any</option>
            {TRIGGERS.map(([t, label]) => (
              <option key={t} value={t}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label class="inline small">
          Device
          <TextFilter list="run-filter-devices" placeholder="any device" value={view.device} onValue={(device) => set({ device })} testId="runs-device" />
          <datalist id="run-filter-devices">
            {devices.map((d) => (
              <option key={d} value={d} />
            ))}
          </datalist>
        </label>
        <label class="inline small">
          From
          <input type="date" value={view.from} max={view.to || undefined} onChange={(e) => set({ from: e.currentTarget.value })} data-testid="runs-from" />
        </label>
        <label class="inline small">
          To
          <input type="date" value={view.to} min={view.from || undefined} onChange={(e) => set({ to: e.currentTarget.value })} data-testid="runs-to" />
        </label>
        <label class="inline small sort-narrow">
          Sort
          <select
            value={`${view.sort} ${view.order}`}
            onChange={(e) => {
              const [sort, order] = e.currentTarget.value.split(" ");
              set({ sort: sort as SortKey, order: order === "asc" ? "asc" : "desc" });
            }}
            data-testid="runs-sort"
          >
            <option value="started desc">newest first</option>
            <option value="started asc">oldest first</option>
            <option value="duration desc">longest first</option>
            <option value="duration asc">shortest first</option>
            <option value="status asc">status A–Z</option>
            <option value="status desc">status Z–A</option>
          </select>
        </label>
        {count > 0 && (
          <button type="button" class="btn btn-ghost btn-small" onClick={clear} data-testid="runs-clear">
            Clear filters
          </button>
        )}
      </div>
    </div>
  );
}
