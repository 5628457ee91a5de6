// The login page.
import { useState } from "preact/hooks";
import { api, errorText } from "../api";
import { AuthCard } from "./AuthCard";

/** Username and password; shows the server's answer on failure (wrong password, too many tries). */
export function Login({ notice, onDone }: { notice?: string; onDone: (user: string, csrf: string) => void }) {
  const [username, setUsername] = useState("admin");
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const me = await api.login(username.trim(), password);
      onDone(me.username, me.csrf_token);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <AuthCard title="Log in">
      {notice && !error && <p class="muted">{notice}</p>}
      <form onSubmit={submit} class="form">
        <label>
          Username
          <input
            name="username"
            autoComplete="username"
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
            required
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            autoFocus
            required
          />
        </label>
        {error && (
          <div class="banner banner-error" role="alert" data-testid="login-error">
            {error}
          </div>
        )}
        <button class="btn btn-primary" type="submit" disabled={busy}>
          {busy ? "Logging in…" : "Log in"}
        </button>
      </form>
    </AuthCard>
  );
}
