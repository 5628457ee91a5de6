// Every task's runs, newest first (the history across tasks).
import { RunHistory } from "./RunHistory";
import type { AreaProps } from "./TasksArea";
import { MenuButton } from "../Sidebar";

/** The page. */
export function RunsPage(_: AreaProps) {
  return (
    <div class="page" data-testid="runs-page">
      <header class="topbar">
        <MenuButton />
        <div class="topbar-title">
          <h1>All runs</h1>
        </div>
      </header>
      <div class="page-body">
        <RunHistory />
      </div>
    </div>
  );
}
