// First start: create the admin with the one-time token from the setup link (`#setup=TOKEN`).
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { useSubmit } from "../hooks/useSubmit";
import { AuthCard } from "./AuthCard";
import { FormError, LabelledInput, SubmitButton } from "./FormFields";

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
  const { error, setError, busy, submit } = useSubmit();
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

  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (password.length < 8) return setError("The password needs at least 8 characters.");
    if (password !== again) return setError("The two passwords differ.");
    if (!token.trim()) return setError("Paste the setup token that `deft serve` printed.");
    void submit(async () => {
      const me = await api.setup(token.trim(), username.trim(), password);
      history.replaceState(null, "", window.location.pathname);
      onDone(me.username, me.csrf_token);
    });
  };

  return (
    <AuthCard title="Set up deft">
      <p class="muted">Create the administrator account. This page works once, with the token from the setup link.</p>
      <form onSubmit={onSubmit} class="form">
        {!fromLink && <LabelledInput label="Setup token" name="token" value={token} onValue={setToken} required />}
        <LabelledInput label="Username" name="username" value={username} onValue={setUsername} required />
        <LabelledInput
          label="Password (at least 8 characters)"
          name="password"
          type="password"
          autoComplete="new-password"
          value={password}
          onValue={setPassword}
          autoFocus
          required
        />
        <LabelledInput
          label="Password again"
          name="password2"
          type="password"
          autoComplete="new-password"
          value={again}
          onValue={setAgain}
          required
        />
        <FormError error={error} />
        <SubmitButton busy={busy} label="Create account" busyLabel="Creating…" />
      </form>
    </AuthCard>
  );
}
