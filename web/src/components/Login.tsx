// The login page.
import { useState } from "preact/hooks";
import { api } from "../api";
import { useSubmit } from "../hooks/useSubmit";
import { AuthCard } from "./AuthCard";
import { FormError, LabelledInput, SubmitButton } from "./FormFields";

/** Username and password; shows the server's answer on failure (wrong password, too many tries). */
export function Login({ notice, onDone }: { notice?: string; onDone: (user: string, csrf: string) => void }) {
  const [username, setUsername] = useState("admin");
  const [password, setPassword] = useState("");
  const { error, busy, submit } = useSubmit();

  const onSubmit = (e: Event) => {
    e.preventDefault();
    void submit(async () => {
      const me = await api.login(username.trim(), password);
      onDone(me.username, me.csrf_token);
    });
  };

  return (
    <AuthCard title="Log in">
      {notice && !error && <p class="muted">{notice}</p>}
      <form onSubmit={onSubmit} class="form">
        <LabelledInput
          label="Username"
          name="username"
          autoComplete="username"
          value={username}
          onValue={setUsername}
          required
        />
        <LabelledInput
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onValue={setPassword}
          autoFocus
          required
        />
        <FormError error={error} testId="login-error" />
        <SubmitButton busy={busy} label="Log in" busyLabel="Logging in…" />
      </form>
    </AuthCard>
  );
}
