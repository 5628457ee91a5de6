// The model's reasoning in a folded block: open while it streams, closed once the answer starts;
// after a person toggles it by hand it stays as they left it.
import { useLayoutEffect, useRef } from "preact/hooks";
import { num } from "../format";

/** `live`: the run is streaming; `answering`: the answer text has started. */
export function Reasoning({ text, live, answering }: { text: string; live: boolean; answering: boolean }) {
  const ref = useRef<HTMLDetailsElement>(null);
  const manual = useRef(false);
  const expected = useRef(false);
  const want = live && !answering;

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || manual.current) return;
    expected.current = want;
    if (el.open !== want) el.open = want;
  }, [want]);

  const onToggle = () => {
    const el = ref.current;
    if (!el) return;
    if (el.open !== expected.current) manual.current = true;
    expected.current = el.open;
  };

  return (
    <details class="reasoning" ref={ref} onToggle={onToggle} data-testid="reasoning">
      <summary>
        💭 Reasoning <span class="muted">· {num([...text].length)} chars</span>
        {want && <span class="pulse" aria-hidden="true" />}
      </summary>
      <div class="reasoning-text">{text}</div>
    </details>
  );
}
