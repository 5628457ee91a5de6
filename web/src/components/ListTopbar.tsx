// The top bar of a list page (the tasks, the experiences, the actions): its title and how many
// there are, the search box, and the button that makes a new one.
import type { ComponentChildren } from "preact";
import { MenuButton } from "./Sidebar";

/** Props of the bar. */
export interface ListTopbarProps {
  title: ComponentChildren;
  /** How many match (null: not known yet), and the noun counted: ["task", "tasks"]. */
  total: number | null;
  noun: [string, string];
  /** The search box: its text, hint and accessible name. */
  q: string;
  onSearch: (text: string) => void;
  placeholder: string;
  searchLabel: string;
  searchTestId: string;
  /** The "+ New …" button. */
  newLabel: string;
  onNew: () => void;
  newTestId: string;
  newDisabled?: boolean;
}

/** The bar. */
export function ListTopbar(p: ListTopbarProps) {
  return (
    <header class="topbar">
      <MenuButton />
      <div class="topbar-title">
        <h1>{p.title}</h1>
        <span class="muted small">{p.total === null ? "…" : `${p.total} ${p.total === 1 ? p.noun[0] : p.noun[1]}`}</span>
      </div>
      <div class="topbar-tools">
        <input
          type="search"
          class="search"
          placeholder={p.placeholder}
          aria-label={p.searchLabel}
          value={p.q}
          onInput={(e) => p.onSearch(e.currentTarget.value)}
          data-testid={p.searchTestId}
        />
        <button class="btn btn-primary btn-small" onClick={p.onNew} disabled={p.newDisabled} data-testid={p.newTestId}>
          {p.newLabel}
        </button>
      </div>
    </header>
  );
}
