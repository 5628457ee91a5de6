// A secret value shown once, when it is made (a named token, a webhook's signing secret): read
// only, with Copy and Done; the server never shows it again. Give it `key={value}` so a new value
// starts uncopied.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

/** Props of [`ShownOnce`]. */
export interface ShownOnceProps {
  /** What the value is, before "copy it now". */
  children: ComponentChildren;
  value: string;
  /** The input's accessible name. */
  label: string;
  testId: string;
  valueTestId: string;
  onDone: () => void;
}

/** The value with its Copy and Done buttons. */
export function ShownOnce(p: ShownOnceProps) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard
      ?.writeText(p.value)
      .then(() => setCopied(true))
      .catch(() => setCopied(false));
  return (
    <div class="token-made" role="status" data-testid={p.testId}>
      <p class="small">{p.children} — copy it now, it is not shown again:</p>
      <div class="token-value">
        <input class="mono" readOnly value={p.value} aria-label={p.label} data-testid={p.valueTestId} />
        <button type="button" class="btn btn-small" onClick={() => void copy()}>
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" class="btn btn-ghost btn-small" onClick={p.onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
