// The run history's Export menu: CSV or JSON of exactly the runs its filters select, in its order
// (every page, not just the one shown), downloaded from the API's export.
import { useEffect, useRef, useState } from "preact/hooks";
import { exportUrl, type RunView } from "../../run-query";
import { menuKeys } from "../common/menuKeys";

/** The button and its menu of two downloads. */
export function RunExport({ view, task }: { view: RunView; task?: string }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open) menu.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
  }, [open]);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  return (
    <span class="run-menu">
      <button
        ref={button}
        type="button"
        class="btn btn-small"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="runs-export"
      >
        Export ▾
      </button>
      {open && (
        <div
          ref={menu}
          class="run-menu-list"
          role="menu"
          aria-label="Export the runs the filters select"
          onKeyDown={(e) => menuKeys(e, menu.current, close)}
          onFocusOut={(e) => {
            if (!menu.current?.contains(e.relatedTarget as Node | null) && e.relatedTarget !== button.current) setOpen(false);
          }}
        >
          {(["csv", "json"] as const).map((f) => (
            <a key={f} role="menuitem" href={exportUrl(view, f, task)} download={`task-runs.${f}`} onClick={() => setOpen(false)} data-testid={`runs-export-${f}`}>
              {f.toUpperCase()}
            </a>
          ))}
        </div>
      )}
    </span>
  );
}
