// First start: create the admin with the one-time token from the setup link (`#setup=TOKEN`).
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { AuthCard } from "./AuthCard";

/** The token in the URL fragment, if any. */
function tokenFromHash(): string {
  const m = /(?:^#|&)setup=([^&]+)/.exec(window.location.hash);
  return m ? decodeURIComponent(m[1]) : "";
}

/** The setup page. */
export function Setup({ onDone }: { onDone: (user: string, csrf: string) => void }) {
  const [token, setToken] = useState(tokenFromHash);
  const [username, setUsername] = useState("admin");
  const [password, setPassword] = useState("");
  const [again, setAgain] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [fromLink, setFromLink] = useState(() => tokenFromHash() !== "");

  // A setup link opened in a tab that already shows this page changes only the fragment.
  useEffect(() => {
    const change = () => {
      const t = tokenFromHash();
      if (t) {
        setToken(t);
        setFromLink(true);
      }
    };
    window.addEventListener("hashchange", change);
    return () => window.removeEventListener("hashchange", change);
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (password.length < 8) return setError("The password needs at least 8 characters.");
    if (password !== again) return setError("The two passwords differ.");
    if (!token.trim()) return setError("Paste the setup token that `deft serve` printed.");
    setBusy(true);
    setError("");
    try {
      const me = await api.setup(token.trim(), username.trim(), password);
      history.replaceState(null, "", window.location.pathname);
      onDone(me.username, me.csrf_token);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <AuthCard title="Set up deft">
      <p class="muted">Create the administrator account. This page works once, with the token from the setup link.</p>
      <form onSubmit={submit} class="form">
        {!fromLink && (
          <label>
            Setup token
            <input name="token" value={token} onInput={(e) => setToken(e.currentTarget.value)} required />
          </label>
        )}
        <label>
          Username
          <input name="username" value={username} onInput={(e) => setUsername(e.currentTarget.value)} required />
        </label>
        <label>
          Password (at least 8 characters)
          <input
            name="password"
            type="password"
            autoComplete="new-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            autoFocus
            required
          />
        </label>
        <label>
          Password again
          <input
            name="password2"
            type="password"
            autoComplete="new-password"
            value={again}
            onInput={(e) => setAgain(e.currentTarget.value)}
            required
          />
        </label>
        {error && (
          <div class="banner banner-error" role="alert">
            {error}
          </div>
        )}
        <button class="btn btn-primary" type="submit" disabled={busy}>
          {busy ? "Creating…" : "Create account"}
        </button>
      </form>
    </AuthCard>
  );
}
