// "+ Add step…": a button that opens the step types a list may hold, narrowed as the person types
// ("wait" leaves wait, wait_el, …). ↑/↓ only move through the types; Enter or a click adds the one
// marked, Escape closes and gives the focus back to the button. Nothing is added by moving or
// typing (a native <select> added a step at every ↓ and every letter that changed its value).
import type { Ref } from "preact";
import { useContext, useEffect, useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { EditorContext } from "./context";
import { typesFor, type StepTypeSpec } from "./spec";

/** Props of the menu. */
export interface AddStepProps {
  /** Adds a step of `type` (the list then moves the focus to it). */
  onAdd: (type: string) => void;
  /** What the list is, for the button's accessible name ("the task", "Then"). */
  where: string;
  /** The menu's button (the list focuses it when its last step is removed). */
  buttonRef?: Ref<HTMLButtonElement>;
}

/** Whether a type matches what the person typed (its name, or the words of what it does). */
function matches(t: StepTypeSpec, q: string): boolean {
  return !q || t.type.includes(q) || t.does.toLowerCase().includes(q);
}

/** The type to mark first for `q`: the one named exactly, else the first whose name starts so. */
function best(shown: readonly StepTypeSpec[], q: string): number {
  if (!q) return 0;
  const exact = shown.findIndex((t) => t.type === q);
  if (exact >= 0) return exact;
  return Math.max(0, shown.findIndex((t) => t.type.startsWith(q)));
}

/** The menu. */
export function AddStep({ onAdd, where, buttonRef }: AddStepProps) {
  const ctx = useContext(EditorContext);
  const [open, setOpen] = useState(false);
  const [filter, setFilter] = useState("");
  const [active, setActive] = useState(0);
  const id = useId();
  const own = useRef<HTMLButtonElement | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const q = filter.trim().toLowerCase();
  const types = typesFor(ctx.library);
  const groups = [
    { label: "Steps", items: types.filter((t) => t.library) },
    ...(ctx.library ? [] : [{ label: "Tasks only", items: types.filter((t) => !t.library) }]),
  ]
    .map((g) => ({ ...g, items: g.items.filter((t) => matches(t, q)) }))
    .filter((g) => g.items.length > 0);
  const shown = groups.flatMap((g) => g.items);
  const marked = shown[Math.min(active, shown.length - 1)];
  const optionId = (t: StepTypeSpec) => `${id}-${t.type}`;

  // In the render that opens it, not after the paint: what the person types right after Enter
  // goes to the filter (after the paint, its first letters fell on the button: "wait" typed
  // fast became "ait", and Enter added wait_el).
  useLayoutEffect(() => {
    if (open) input.current?.focus();
  }, [open]);
  useEffect(() => {
    if (!marked) return;
    document.getElementById(optionId(marked))?.scrollIntoView({ block: "nearest" });
  }, [open, marked?.type]);

  const show = (at: "first" | "last") => {
    setFilter("");
    setActive(at === "first" ? 0 : shown.length - 1);
    setOpen(true);
  };
  const close = (refocus: boolean) => {
    setOpen(false);
    setFilter("");
    if (refocus) own.current?.focus();
  };
  const add = (t: StepTypeSpec) => {
    setOpen(false);
    setFilter("");
    onAdd(t.type);
  };

  const onInputKey = (e: KeyboardEvent) => {
    const n = shown.length;
    switch (e.key) {
      case "ArrowDown":
      case "ArrowUp":
        e.preventDefault();
        if (n) setActive((a) => (Math.min(a, n - 1) + (e.key === "ArrowDown" ? 1 : n - 1)) % n);
        return;
      case "Enter":
        e.preventDefault();
        if (marked) add(marked);
        return;
      case "Escape":
        e.preventDefault();
        e.stopPropagation();
        close(true);
        return;
      case "Tab":
        close(false);
        return;
    }
  };

  return (
    <div
      class="add-step-menu"
      onFocusOut={(e) => {
        // Closed when the focus leaves the button and its list (a click elsewhere, Tab).
        const next = e.relatedTarget as Node | null;
        if (open && (!next || !e.currentTarget.contains(next))) close(false);
      }}
    >
      <button
        ref={(el) => {
          own.current = el;
          if (typeof buttonRef === "function") buttonRef(el);
          else if (buttonRef) buttonRef.current = el;
        }}
        type="button"
        class="add-step"
        aria-label={`Add a step to ${where}`}
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={open ? `${id}-list` : undefined}
        onClick={() => (open ? close(true) : show("first"))}
        onKeyDown={(e) => {
          if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
          e.preventDefault();
          show(e.key === "ArrowDown" ? "first" : "last");
        }}
        data-testid="add-step"
      >
        + Add step…
      </button>
      {open && (
        <div class="add-step-popup" data-testid="add-step-popup">
          <input
            ref={input}
            type="text"
            role="combobox"
            class="add-step-filter"
            placeholder="Type to narrow: wait, click, text…"
            aria-label={`Step type to add to ${where}`}
            aria-autocomplete="list"
            aria-expanded="true"
            aria-controls={`${id}-list`}
            aria-activedescendant={marked ? optionId(marked) : undefined}
            value={filter}
            onInput={(e) => {
              const text = e.currentTarget.value;
              setFilter(text);
              const q2 = text.trim().toLowerCase();
              setActive(best(types.filter((t) => matches(t, q2)), q2));
            }}
            onKeyDown={onInputKey}
            data-testid="add-step-filter"
          />
          <ul id={`${id}-list`} role="listbox" aria-label={`Step types for ${where}`} class="add-step-options" data-testid="add-step-options">
            {shown.length === 0 && (
              <li class="muted small add-step-none" role="presentation">
                No step type matches “{filter}”.
              </li>
            )}
            {groups.map((g) => (
              <li key={g.label} role="presentation">
                <div class="add-step-group" aria-hidden="true">
                  {g.label}
                </div>
                <ul role="group" aria-label={g.label} class="plain">
                  {g.items.map((t) => (
                    <li
                      key={t.type}
                      id={optionId(t)}
                      role="option"
                      aria-selected={t === marked}
                      class={t === marked ? "add-step-option add-step-option-on" : "add-step-option"}
                      data-type={t.type}
                      // The focus stays in the filter box; the click adds.
                      onMouseDown={(e) => e.preventDefault()}
                      onMouseMove={() => setActive(shown.indexOf(t))}
                      onClick={() => add(t)}
                    >
                      <span class="step-type">{t.type}</span> <span class="muted">— {t.does}</span>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
