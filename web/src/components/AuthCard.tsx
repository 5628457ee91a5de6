// The frame of the login and setup pages.
import type { ComponentChildren } from "preact";

/** A centered card with the product name. */
export function AuthCard({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <main class="auth">
      <div class="auth-card">
        <div class="brand brand-large">
          <span class="brand-mark">◆</span> deft
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
