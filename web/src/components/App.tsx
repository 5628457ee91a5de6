// The auth gate: first-start setup, login, or the console.
import { useEffect, useState } from "preact/hooks";
import { api, errorText, setCsrfToken, setUnauthorizedHandler } from "../api";
import { Console } from "./Console";
import { Login } from "./Login";
import { Setup } from "./Setup";

type Gate =
  | { page: "loading" }
  | { page: "unreachable"; message: string }
  | { page: "setup" }
  | { page: "login"; notice?: string }
  | { page: "console"; username: string };

/** The whole app. */
export function App() {
  const [gate, setGate] = useState<Gate>({ page: "loading" });

  const check = async () => {
    try {
      const state = await api.authState();
      if (state.setup_required) return setGate({ page: "setup" });
      if (!state.logged_in) return setGate({ page: "login" });
      const me = await api.me();
      setCsrfToken(me.csrf_token);
      setGate({ page: "console", username: me.username });
    } catch (e) {
      if ((e as { status?: number }).status === 401) return setGate({ page: "login" });
      setGate({ page: "unreachable", message: errorText(e) });
    }
  };

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
          <button class="btn" onClick={() => void check()}>
            Try again
          </button>
        </div>
      );
    case "setup":
      return <Setup onDone={loggedIn} />;
    case "login":
      return <Login notice={gate.notice} onDone={loggedIn} />;
    case "console":
      return (
        <Console
          username={gate.username}
          onLoggedOut={() => setGate({ page: "login", notice: "Logged out." })}
        />
      );
  }
}
