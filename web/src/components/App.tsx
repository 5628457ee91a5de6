// The auth gate: first-start setup, login, or the console (the chat, designer mode, the Tasks
// pages, the memory or the fleet, by path).
import { useEffect, useState } from "preact/hooks";
import { api, errorText, setCsrfToken, setUnauthorizedHandler } from "../api";
import { usePath } from "../router";
import { Console } from "./Console";
import { DesignerPage } from "./designer/DesignerPage";
import { FleetArea } from "./fleet/FleetArea";
import { Login } from "./Login";
import { MemoryArea } from "./memory/MemoryArea";
import { Setup } from "./Setup";
import { TasksArea } from "./tasks/TasksArea";

type Gate =
  | { page: "loading" }
  | { page: "unreachable"; message: string; attempt: number }
  | { page: "setup" }
  | { page: "login"; notice?: string }
  | { page: "console"; username: string };

/** The whole app. */
export function App() {
  const [gate, setGate] = useState<Gate>({ page: "loading" });

  const check = async (attempt = 0) => {
    try {
      const state = await api.authState();
      if (state.setup_required) return setGate({ page: "setup" });
      if (!state.logged_in) return setGate({ page: "login" });
      const me = await api.me();
      setCsrfToken(me.csrf_token);
      setGate({ page: "console", username: me.username });
    } catch (e) {
      if ((e as { status?: number }).status === 401) return setGate({ page: "login" });
      setGate({ page: "unreachable", message: errorText(e), attempt });
    }
  };

  // While the server cannot be reached, keep asking on a backoff (1, 2, 4 … 10 s) and go on by
  // itself once it answers: a page opened while the server was down recovers without a reload.
  useEffect(() => {
    if (gate.page !== "unreachable") return;
    const timer = setTimeout(
      () => void check(gate.attempt + 1),
      retryDelayMs(gate.attempt),
    );
    return () => clearTimeout(timer);
  }, [gate]);

  useEffect(() => {
    setUnauthorizedHandler(() =>
      setGate({ page: "login", notice: "Your session has ended. Log in again." }),
    );
    void check();
  }, []);

  const loggedIn = (username: string, csrf: string) => {
    setCsrfToken(csrf);
    setGate({ page: "console", username });
  };

  switch (gate.page) {
    case "loading":
      return <div class="splash">Loading…</div>;
    case "unreachable":
      return (
        <div class="splash">
          <div class="banner banner-error" role="alert">
            {gate.message}
          </div>
          <p class="muted">Trying again every {Math.round(retryDelayMs(gate.attempt) / 1000)} s…</p>
          <button class="btn" onClick={() => void check(gate.attempt + 1)}>
            Try again now
          </button>
        </div>
      );
    case "setup":
      return <Setup onDone={loggedIn} />;
    case "login":
      return <Login notice={gate.notice} onDone={loggedIn} />;
    case "console":
      return <Pages username={gate.username} onLoggedOut={() => setGate({ page: "login", notice: "Logged out." })} />;
  }
}

/** The logged-in console: the chat, designer mode (`/designer`), the Tasks pages (`/tasks…`,
 * `/task-runs…`), the memory (`/memory…`) or the fleet (`/fleet`). */
function Pages({ username, onLoggedOut }: { username: string; onLoggedOut: () => void }) {
  const path = usePath();
  if (/^\/task(s|-runs)(\/|$)/.test(path)) return <TasksArea path={path} username={username} onLoggedOut={onLoggedOut} />;
  if (/^\/memory(\/|$)/.test(path)) return <MemoryArea path={path} username={username} onLoggedOut={onLoggedOut} />;
  if (/^\/designer\/?$/.test(path)) return <DesignerPage username={username} onLoggedOut={onLoggedOut} />;
  if (/^\/fleet\/?$/.test(path)) return <FleetArea username={username} onLoggedOut={onLoggedOut} />;
  return <Console username={username} onLoggedOut={onLoggedOut} />;
}

/** How long to wait before the next try after `attempt` failed ones: 1 s, doubling, at most 10 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(1000 * 2 ** attempt, 10_000);
}
