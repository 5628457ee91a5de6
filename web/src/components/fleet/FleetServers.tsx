// What the Fleet page shows: the servers as a table (a card each on a narrow screen) with their
// state, address, version, times and the devices each holds; or, on SQLite, why this server is
// alone. Every name, address and id comes from another server's row: shown as text, and an
// address is a link only when it is an http(s) URL.
import { clock, dateTime, relative } from "../../format";
import type { FleetDevice, FleetMember, MemberState } from "../../types";

/** Each state's mark, word and meaning. */
const STATES: Record<MemberState, { mark: string; says: string }> = {
  online: { mark: "●", says: "its heartbeat is recent; it holds the devices connected to it" },
  silent: {
    mark: "◌",
    says: "no heartbeat for longer than a lease (dead, paused or cut off); its devices move to whichever server they reconnect to",
  },
  stopped: { mark: "■", says: "shut down cleanly; its devices' leases were let go" },
};

/** The servers of a fleet (`thisServer`: the id of the one that answered). */
export function FleetServers({ servers, thisServer }: { servers: FleetMember[]; thisServer: string }) {
  if (servers.length === 0) {
    return (
      <p class="muted" data-testid="fleet-empty">
        No server has registered on the database yet (this one does within a heartbeat of its start).
      </p>
    );
  }
  return (
    <>
      <table class="table fleet-table table-cards" data-testid="fleet-table">
        <caption class="sr-only">The servers of the fleet</caption>
        <thead>
          <tr>
            <th scope="col">Server</th>
            <th scope="col">State</th>
            <th scope="col">Address</th>
            <th scope="col">Version</th>
            <th scope="col">Started</th>
            <th scope="col">Last heartbeat</th>
            <th scope="col">Devices</th>
          </tr>
        </thead>
        <tbody>
          {servers.map((s) => (
            <ServerRow key={s.id} server={s} self={s.id === thisServer} />
          ))}
        </tbody>
      </table>
      <dl class="fleet-legend small muted" aria-label="What the states mean">
        {(Object.keys(STATES) as MemberState[]).map((k) => (
          <div key={k}>
            <dt>
              <span class={`fleet-state-${k}`} aria-hidden="true">
                {STATES[k].mark}
              </span>{" "}
              {k}
            </dt>
            <dd>{STATES[k].says}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

/** One server's row (a card on a narrow screen). */
function ServerRow({ server: s, self }: { server: FleetMember; self: boolean }) {
  const state = STATES[s.state];
  return (
    <tr class={self ? "fleet-self" : undefined} data-testid="fleet-server" data-id={s.id} data-state={s.state} data-this={self ? "true" : undefined}>
      <td class="card-title">
        <span class="fleet-name" data-testid="fleet-name">
          {s.name}
        </span>
        {self && (
          <>
            {" "}
            <span class="chip chip-running" title="The server this page is served by" data-testid="fleet-this">
              this server
            </span>
          </>
        )}
      </td>
      <td data-label="State">
        <span class={`chip fleet-state fleet-state-${s.state}`} title={`${s.state}: ${state.says}`} data-testid="fleet-state">
          <span aria-hidden="true">{state.mark}</span> {s.state}
        </span>
        {s.state === "silent" && <div class="small muted fleet-why">{state.says}</div>}
      </td>
      <td class="small" data-label="Address">
        <Address url={s.address} />
      </td>
      <td class="mono small" data-label="Version">
        {s.version}
      </td>
      <td class="small" data-label="Started">
        <time dateTime={s.started_at} title={dateTime(s.started_at)}>
          {relative(s.started_at)}
        </time>
      </td>
      <td class="small" data-label="Last heartbeat">
        <time dateTime={s.last_heartbeat} title={dateTime(s.last_heartbeat)} data-testid="fleet-heartbeat">
          {relative(s.last_heartbeat)}
        </time>
      </td>
      <td class="small" data-label="Devices" data-testid="fleet-devices">
        {s.devices.length === 0 ? (
          <span class="muted">none</span>
        ) : (
          <ul class="plain fleet-devices">
            {s.devices.map((d) => (
              <DeviceLine key={d.id} device={d} />
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}

/** A device a server holds: its id, the lease's epoch and until when it lasts. */
function DeviceLine({ device: d }: { device: FleetDevice }) {
  return (
    <li data-testid="fleet-device" data-device={d.id} data-epoch={d.epoch}>
      <span class="mono">{d.id}</span>{" "}
      <span class="muted">
        · epoch {d.epoch} · held since <time dateTime={d.since} title={dateTime(d.since)}>{clock(d.since)}</time> · lease until{" "}
        <time dateTime={d.lease_until} title={dateTime(d.lease_until)}>
          {clock(d.lease_until)}
        </time>
      </span>
    </li>
  );
}

/** A server's address: a link (in a new tab) when it is an http(s) URL, else its text. */
function Address({ url }: { url: string }) {
  let ok = false;
  try {
    const u = new URL(url);
    ok = u.protocol === "http:" || u.protocol === "https:";
  } catch {
    ok = false;
  }
  return ok ? (
    <a href={url} target="_blank" rel="noopener noreferrer" class="mono" data-testid="fleet-address">
      {url}
    </a>
  ) : (
    <span class="mono" data-testid="fleet-address">
      {url}
    </span>
  );
}

/** On SQLite: this server is alone, and how several make a fleet. */
export function FleetAlone() {
  return (
    <section class="fleet-alone" aria-labelledby="fleet-alone-title" data-testid="fleet-alone">
      <h2 id="fleet-alone-title">This server is alone</h2>
      <p>
        It keeps its data in SQLite (<code>deft.db</code> in its data folder), which serves one server. There is no fleet to list: every device connects to this
        server.
      </p>
      <p>
        To make a fleet, start several <code>deft serve</code> — on this machine or others — with the same PostgreSQL database:
      </p>
      <pre class="mono">
        <code>{"deft serve --database-url postgres://USER:PASSWORD@HOST/DATABASE \\\n  --fleet-name NAME --fleet-address https://THIS-SERVER:PORT"}</code>
      </pre>
      <p class="muted small">
        (or <code>DATABASE_URL</code>, <code>DEFT_FLEET_NAME</code> and <code>DEFT_FLEET_ADDRESS</code> in their environment). Each one registers with its
        name and address and sends a heartbeat; a device — a <code>deft client</code> given several <code>--server</code> addresses — connects to one of
        them at a time, and moves to another when its server stops or goes silent. This page then lists them all.
      </p>
    </section>
  );
}
