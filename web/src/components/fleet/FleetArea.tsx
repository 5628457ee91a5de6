// The 🛰 Fleet page (`/fleet`): every `deft serve` sharing this server's PostgreSQL database, with
// its state and the devices it holds (GET /api/fleet), asked again every 5 s while the page is
// visible; on SQLite, why this server is alone and how to make a fleet.
import { api } from "../../api";
import { clock } from "../../format";
import { usePolled } from "../../hooks/usePolled";
import { PageNav, UserFoot } from "../PageNav";
import { MenuButton, Sidebar } from "../Sidebar";
import { FleetAlone, FleetServers } from "./FleetServers";

/** How often the page asks again while it is visible. */
const EVERY_MS = 5000;

/** The fleet area: the sidebar and the page. */
export function FleetArea({ username, onLoggedOut }: { username: string; onLoggedOut: () => void }) {
  return (
    <div class="console tasks-area">
      <Sidebar>
        <PageNav current="fleet" />
        <p class="muted small side-note">
          Several <code>deft serve</code> on one PostgreSQL database are a fleet: they share its tasks and runs, and each device connects to one of
          them at a time.
        </p>
        <UserFoot username={username} onLoggedOut={onLoggedOut} />
      </Sidebar>
      <main class="tasks-main">
        <FleetPage />
      </main>
    </div>
  );
}

/** The page: its bar, then the servers (or why there are none). */
function FleetPage() {
  const fleet = usePolled(api.fleet, EVERY_MS);
  const view = fleet.data;
  const count = view?.enabled ? `${view.servers.length} ${view.servers.length === 1 ? "server" : "servers"}` : "";
  return (
    <div class="page" data-testid="fleet-page">
      <header class="topbar">
        <MenuButton />
        <div class="topbar-title">
          <h1>Fleet</h1>
          {count && <span class="muted small">{count}</span>}
        </div>
        <div class="topbar-tools">
          {fleet.at > 0 && (
            <span class="muted small" title="The page asks again every 5 s while it is shown" data-testid="fleet-updated">
              updated {clock(new Date(fleet.at).toISOString())}
            </span>
          )}
          <button type="button" class="btn btn-ghost btn-small" onClick={fleet.reload} data-testid="fleet-refresh">
            ↻ Refresh
          </button>
        </div>
      </header>
      <div class="page-body">
        {fleet.error && (
          <div class="banner banner-error" role="alert" data-testid="fleet-error">
            {view ? `Cannot refresh the fleet: ${fleet.error}. Shown: the answer of ${clock(new Date(fleet.at).toISOString())}.` : `Cannot load the fleet: ${fleet.error}`}{" "}
            <button type="button" class="link" onClick={fleet.reload}>
              Try again
            </button>
          </div>
        )}
        {!view && !fleet.error && (
          <p class="muted" role="status" data-testid="fleet-loading">
            Loading the fleet…
          </p>
        )}
        {view && !view.enabled && <FleetAlone />}
        {view && view.enabled && <FleetServers servers={view.servers} thisServer={view.this_server} />}
      </div>
    </div>
  );
}
