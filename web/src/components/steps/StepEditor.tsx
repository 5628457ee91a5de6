// The step editor: a list of steps (docs/tasks.md), each a card with a form for its type, nested
// lists for group / loop / if_el, add, remove, move, duplicate, and the validator's problems at the
// step and field they name. Reusable: the task editor, designer mode's draft review and the action
// library (library mode: the sixteen library types) give it a step list and the problems of their
// last validation, and get every edit back through `onChange`.
import { useContext, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api";
import type { Issue } from "../../types";
import { STEP_ICON, type TaskStepView } from "../../task-run-state";
import { AddStep } from "./AddStep";
import { EditorContext, type EditorState, type OpenRequest } from "./context";
import { BoolField, ChoiceField, IssueLines, ItemsField, NumberField, PointsField, RetryFields, StringsField, TextField, type FieldProps } from "./Fields";
import { fieldIssues, issuesAt, nestedCounts, type Found } from "./issues";
import { ControlTypeList, relative, SelectorFields } from "./SelectorFields";
import { COMMON_FIELDS, paramKeys, RETRY_FIELDS, specOf, typesFor, variantOf, type FieldSpec, type StepTypeSpec } from "./spec";
import { stepSummary } from "./summary";
import { menuKeys } from "../common/menuKeys";

type Obj = Record<string, unknown>;

/** Props of the step editor. */
export interface StepEditorProps {
  /** The steps (JSON values: whatever the file holds, valid or not). */
  value: unknown[];
  /** Every edit, as the whole new list. */
  onChange: (steps: unknown[]) => void;
  /** The validator's errors and warnings, at their paths (`steps[3].then[0].selector`). */
  errors?: Issue[];
  warnings?: Issue[];
  /** Only the sixteen library types may be added (the action library). */
  library?: boolean;
  /** Show, never edit. */
  readOnly?: boolean;
  /** The list's path in the validator's paths (default `steps`). */
  path?: string;
  /** The device "Pick from device" asks (none: no picker). */
  device?: string;
  /** Open the step at this path (and its parents), scroll to it and focus it; change `n` to ask
   * again. */
  reveal?: { path: string; n: number };
  /** A run's result of each step, by path (the latest, for a step a loop ran more than once). */
  results?: ReadonlyMap<string, TaskStepView>;
  /** Run to here / run this step from a card's menu (none: no such menu). */
  runStep?: (path: string, how: "until" | "only") => void;
  /** Why those cannot start now; empty when they can. */
  runNote?: string;
}

// Stable keys for steps across edits and moves, so a card keeps its state (open or not) while its
// step moves or changes.
const stepKeys = new WeakMap<object, string>();
let lastKey = 0;

function keyOf(step: unknown, fallback: string): string {
  if (typeof step !== "object" || step === null) return fallback;
  let k = stepKeys.get(step);
  if (!k) {
    k = `step-${++lastKey}`;
    stepKeys.set(step, k);
  }
  return k;
}

/** `to` replaces `from` in the list: it keeps `from`'s key. */
function carryKey(from: unknown, to: unknown): void {
  if (typeof from === "object" && from !== null && typeof to === "object" && to !== null) {
    stepKeys.set(to, keyOf(from, ""));
  }
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** How many steps a list holds, nested ones counted. */
export function countSteps(steps: unknown): number {
  if (!Array.isArray(steps)) return 0;
  return steps.reduce<number>((n, s) => {
    if (!isObj(s)) return n + 1;
    return n + 1 + countSteps(s.steps) + countSteps(s.then) + countSteps(s.else);
  }, 0);
}

/** Whether a device can be asked now, checked every 10 s while the editor shows, and at once when
 * `again` changes (a run from the cards started or ended). */
function useDeviceReady(device: string | undefined, again?: unknown): { ready: boolean; note: string } {
  const [state, setState] = useState({ ready: false, note: "checking the device…" });
  useEffect(() => {
    if (!device) return;
    let gone = false;
    const check = async () => {
      try {
        const d = (await api.devices()).find((x) => x.id === device);
        const next = !d
          ? { ready: false, note: `${device} is not connected` }
          : !d.has_screen
            ? { ready: false, note: `${device} has no screen (profile ${d.profile})` }
            : d.busy
              ? { ready: false, note: `${device} is busy (a run, a task or a batch holds it)` }
              : { ready: true, note: "" };
        if (!gone) setState(next);
      } catch {
        if (!gone) setState({ ready: false, note: "cannot reach the server" });
      }
    };
    void check();
    const t = setInterval(() => void check(), 10_000);
    return () => {
      gone = true;
      clearInterval(t);
    };
  }, [device, again]);
  return state;
}

/** The step editor. */
export function StepEditor(p: StepEditorProps) {
  const [open, setOpen] = useState<OpenRequest>({ n: 0 });
  const fresh = useRef(new Set<string>()).current;
  const [startOpen] = useState(() => countSteps(p.value) <= 12);
  const device = useDeviceReady(p.device, p.runNote);
  useEffect(() => {
    if (p.reveal) setOpen((o) => ({ n: o.n + 1, path: p.reveal!.path }));
  }, [p.reveal?.n]);
  const state: EditorState = {
    issues: { errors: p.errors ?? [], warnings: p.warnings ?? [] },
    readOnly: !!p.readOnly,
    library: !!p.library,
    device: p.device,
    deviceReady: device.ready,
    deviceNote: device.note,
    open,
    startOpen,
    fresh,
    results: p.results,
    runStep: p.runStep,
    runNote: p.runNote,
  };
  const total = countSteps(p.value);
  return (
    <EditorContext.Provider value={state}>
      <div class={`step-editor${p.readOnly ? " read-only" : ""}`} data-testid="step-editor">
        <div class="step-editor-bar">
          <span class="muted small">
            {total} {total === 1 ? "step" : "steps"}
            {p.library ? " · library types only" : ""}
          </span>
          <span class="grow" />
          <button type="button" class="btn btn-ghost btn-small" onClick={() => setOpen((o) => ({ n: o.n + 1, all: true }))}>
            Expand all
          </button>
          <button type="button" class="btn btn-ghost btn-small" onClick={() => setOpen((o) => ({ n: o.n + 1, all: false }))}>
            Collapse all
          </button>
        </div>
        <StepList path={p.path ?? "steps"} steps={p.value} onChange={p.onChange} />
        <ControlTypeList />
      </div>
    </EditorContext.Provider>
  );
}

/** Where the focus goes once a list shows `steps` (the list an add, a removal or a move made). */
interface FocusRequest {
  steps: unknown[];
  /** The card at this index, else the last one; with no card, the list's add menu. */
  at: number;
  /** The control of the card's head (its `data-control`) to focus, if it is there and enabled;
   * else the card's toggle. */
  control?: string;
}

/** Carries out `want` in the list `box` (its own cards, not nested lists'). */
function focusIn(box: HTMLElement, want: FocusRequest, addButton: HTMLElement | null): void {
  const heads = box.querySelectorAll<HTMLElement>(":scope > ol > li > .step-card-head");
  const head = heads[Math.min(want.at, heads.length - 1)];
  if (!head) {
    addButton?.focus();
    return;
  }
  const control = want.control ? head.querySelector<HTMLButtonElement>(`[data-control="${want.control}"]`) : null;
  (control && !control.disabled ? control : head.querySelector<HTMLElement>(":scope > .step-toggle"))?.focus();
}

/** Props of a list of steps. */
interface StepListProps {
  path: string;
  steps: unknown[];
  onChange: (steps: unknown[]) => void;
  title?: string;
}

/** A list of steps (the task's, or a group's, loop's or branch's). */
function StepList({ path, steps, onChange, title }: StepListProps) {
  const ctx = useContext(EditorContext);
  const box = useRef<HTMLDivElement>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  // After an add, a removal or a move the focus stays in the list (it would fall to the page's
  // body with a removed card, or with a moved one whose DOM node was taken out and put back).
  const focusAt = useRef<FocusRequest | null>(null);
  // In a layout effect: in the same task as the render that shows the change, so a key pressed
  // right after (a second Alt+↑, a held key repeating) finds the focus where it belongs — an
  // effect after the paint let that key act first, and the stale request then moved the focus
  // to a control the next render disabled.
  useLayoutEffect(() => {
    const want = focusAt.current;
    if (!want || want.steps !== steps) return;
    focusAt.current = null;
    if (box.current) focusIn(box.current, want, addButton.current);
  });
  const insert = (at: number, step: unknown, focus = false) => {
    ctx.fresh.add(keyOf(step, ""));
    const next = [...steps.slice(0, at), step, ...steps.slice(at)];
    if (focus) focusAt.current = { at, steps: next };
    onChange(next);
  };
  const remove = (i: number) => {
    const next = steps.filter((_, j) => j !== i);
    focusAt.current = { at: i, steps: next };
    onChange(next);
  };
  const add = (type: string) => insert(steps.length, specOf(type)!.template(), true);
  const update = (i: number, next: unknown) => {
    carryKey(steps[i], next);
    onChange(steps.map((s, j) => (j === i ? next : s)));
  };
  const move = (i: number, by: -1 | 1, control: string | undefined) => {
    const j = i + by;
    if (j < 0 || j >= steps.length) return;
    const next = steps.slice();
    [next[i], next[j]] = [next[j], next[i]];
    focusAt.current = { at: j, steps: next, control };
    onChange(next);
  };
  return (
    <div class="step-list" data-list={path} ref={box}>
      {title && <div class="step-list-title">{title}</div>}
      {steps.length === 0 && <p class="muted small step-list-empty">No steps yet.</p>}
      <ol>
        {steps.map((s, i) => (
          <StepCard
            key={keyOf(s, `${path}[${i}]`)}
            cardKey={keyOf(s, `${path}[${i}]`)}
            path={`${path}[${i}]`}
            index={i}
            count={steps.length}
            step={s}
            onChange={(next) => update(i, next)}
            onMove={(by, control) => move(i, by, control)}
            onRemove={() => remove(i)}
            onDuplicate={() => insert(i + 1, structuredClone(s))}
          />
        ))}
      </ol>
      {!ctx.readOnly && <AddStep onAdd={add} where={title ?? "the task"} buttonRef={addButton} />}
    </div>
  );
}

/** Props of one step's card. */
interface StepCardProps {
  cardKey: string;
  path: string;
  index: number;
  count: number;
  step: unknown;
  onChange: (step: unknown) => void;
  /** Moves the step by one; the focus then goes to `control` (a `data-control` of its head) on
   * the moved card, or to its toggle. */
  onMove: (by: -1 | 1, control: string | undefined) => void;
  onRemove: () => void;
  onDuplicate: () => void;
}

/** Fields the card shows for a step of `spec` with the values of `step`. */
function shownFields(spec: StepTypeSpec | undefined, step: Obj): FieldSpec[] {
  if (!spec) return [];
  const variant = variantOf(spec, step);
  return [...(variant?.fields ?? []), ...spec.fields];
}

/** One step. */
function StepCard(p: StepCardProps) {
  const ctx = useContext(EditorContext);
  const [open, setOpen] = useState(ctx.fresh.has(p.cardKey) || ctx.startOpen);
  const seen = useRef(ctx.open.n);
  const head = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (ctx.open.n === seen.current) return;
    seen.current = ctx.open.n;
    if (ctx.open.all !== undefined) setOpen(ctx.open.all);
    const target = ctx.open.path;
    if (!target) return;
    if (target === p.path || target.startsWith(`${p.path}.`)) setOpen(true);
    if (target === p.path) {
      head.current?.scrollIntoView({ block: "center", behavior: "smooth" });
      head.current?.focus({ preventScroll: true });
    }
  }, [ctx.open.n]);

  const obj = isObj(p.step) ? p.step : null;
  const spec = obj ? specOf(obj.type) : undefined;
  const type = obj && typeof obj.type === "string" ? obj.type : "?";
  const found = issuesAt(ctx.issues, p.path);
  const nested = nestedCounts(ctx.issues, p.path);
  const errors = found.filter((f) => f.severity === "error").length + nested.errors;
  const warnings = found.filter((f) => f.severity === "warning").length + nested.warnings;
  const fields = obj ? shownFields(spec, obj) : [];
  const atFields = new Set([...fields, ...COMMON_FIELDS].map((f) => f.key));
  const top = (f: Found) => f.field.split(/[.[]/)[0];
  const headIssues = open ? found.filter((f) => !atFields.has(top(f))) : found;
  const note = obj && typeof obj.note === "string" ? obj.note : "";
  const n = p.index + 1;
  const status = errors ? " step-card-error" : warnings ? " step-card-warning" : "";
  const result = ctx.results?.get(p.path);

  return (
    <li class={`step-card${status}`} data-testid="step-card" data-path={p.path} data-type={type}>
      <div
        class="step-card-head"
        onKeyDown={(e) => {
          // Alt+↑ / Alt+↓ move the step; the focus stays on the control that had it.
          if (ctx.readOnly || !e.altKey || (e.key !== "ArrowUp" && e.key !== "ArrowDown")) return;
          e.preventDefault();
          p.onMove(e.key === "ArrowUp" ? -1 : 1, (e.target as Element).closest("[data-control]")?.getAttribute("data-control") ?? undefined);
        }}
      >
        <span class="step-num" aria-hidden="true">
          {n}
        </span>
        <button
          ref={head}
          type="button"
          class="step-toggle"
          aria-expanded={open}
          aria-label={`Step ${n}: ${type} ${stepSummary(p.step)}`}
          onClick={() => setOpen(!open)}
          data-control="toggle"
          data-testid="step-toggle"
        >
          <span class="step-type" title={spec?.does}>
            {type}
          </span>
          <span class="step-sum">{stepSummary(p.step)}</span>
        </button>
        {errors > 0 && (
          <span class="chip chip-failed" title={`${errors} ${errors === 1 ? "error" : "errors"} in this step${nested.errors ? " and its sub-steps" : ""}`} data-testid="step-errors">
            ✕ {errors}
          </span>
        )}
        {warnings > 0 && (
          <span class="chip chip-waiting" title={`${warnings} ${warnings === 1 ? "warning" : "warnings"}`} data-testid="step-warnings">
            ! {warnings}
          </span>
        )}
        {result && (
          <span class={`chip chip-task-${result.status}`} title={`The try run: ${result.status}${result.error ? ` — ${result.error}` : ""}`} data-testid="step-result" data-status={result.status}>
            {STEP_ICON[result.status] ?? "•"} {result.status}
          </span>
        )}
        {ctx.runStep && <RunMenu path={p.path} n={n} />}
        {!ctx.readOnly && (
          <span class="step-actions">
            <button type="button" class="icon-btn" aria-label={`Move step ${n} up`} title="Move up (Alt+↑)" aria-keyshortcuts="Alt+ArrowUp" disabled={p.index === 0} onClick={() => p.onMove(-1, "up")} data-control="up">
              ↑
            </button>
            <button type="button" class="icon-btn" aria-label={`Move step ${n} down`} title="Move down (Alt+↓)" aria-keyshortcuts="Alt+ArrowDown" disabled={p.index === p.count - 1} onClick={() => p.onMove(1, "down")} data-control="down">
              ↓
            </button>
            <button type="button" class="icon-btn" aria-label={`Duplicate step ${n}`} title="Duplicate" onClick={p.onDuplicate} data-control="duplicate">
              ❐
            </button>
            <button type="button" class="icon-btn icon-danger" aria-label={`Remove step ${n}`} title="Remove" onClick={p.onRemove} data-control="remove">
              ✕
            </button>
          </span>
        )}
      </div>
      {note && !open && <div class="step-note">📝 {note}</div>}
      {result?.error && (
        <div class="step-result-error issue issue-error" data-testid="step-result-error">
          <span class="issue-mark" aria-hidden="true">
            ✕
          </span>
          tried: {result.error}
        </div>
      )}
      {headIssues.length > 0 && (
        <ul class="issue-lines step-issues">
          {headIssues.map((f, k) => (
            <li key={k} class={`issue issue-${f.severity}`} data-testid="step-issue" data-severity={f.severity}>
              <span class="issue-mark" aria-hidden="true">
                {f.severity === "error" ? "✕" : "!"}
              </span>
              {f.field && <code>{f.field}</code>} {f.message}
            </li>
          ))}
        </ul>
      )}
      {open && (
        <div class="step-body">
          {obj && spec ? (
            <StepForm step={obj} spec={spec} path={p.path} found={found} fields={fields} onChange={p.onChange} />
          ) : (
            <UnknownStep step={p.step} onChange={p.onChange} />
          )}
        </div>
      )}
    </li>
  );
}

/** A card's run menu: run the task up to and including this step, or this step alone, on the
 * editor's device. A button that opens a menu of two items; ↑ / ↓ move between them, Escape
 * closes it and gives the focus back. */
function RunMenu({ path, n }: { path: string; n: number }) {
  const ctx = useContext(EditorContext);
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  // In the render that opens it, so a key pressed right after lands in the menu.
  useLayoutEffect(() => {
    if (open) menu.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
  }, [open]);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const run = (how: "until" | "only") => {
    setOpen(false);
    ctx.runStep?.(path, how);
  };
  const disabled = !!ctx.runNote;
  return (
    <span class="run-menu">
      <button
        ref={button}
        type="button"
        class="icon-btn"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={`Run step ${n}…`}
        title={ctx.runNote || "Run to here, or this step alone, on the device"}
        onClick={() => setOpen(!open)}
        data-testid="step-run-menu"
      >
        ▶
      </button>
      {open && (
        <div
          ref={menu}
          class="run-menu-list"
          role="menu"
          data-testid="step-run-items"
          aria-label={`Run step ${n}`}
          onKeyDown={(e) => menuKeys(e, menu.current, close)}
          onFocusOut={(e) => {
            if (!menu.current?.contains(e.relatedTarget as Node | null) && e.relatedTarget !== button.current) setOpen(false);
          }}
        >
          <button type="button" role="menuitem" disabled={disabled} title={ctx.runNote} onClick={() => run("until")} data-testid="run-to-here">
            Run to here
          </button>
          <button type="button" role="menuitem" disabled={disabled} title={ctx.runNote} onClick={() => run("only")} data-testid="run-this-step">
            Run this step
          </button>
          {disabled && <div class="muted small run-menu-note">{ctx.runNote}</div>}
        </div>
      )}
    </span>
  );
}

/** Default values of a variant's required fields, when a person switches to it. */
function variantDefault(f: FieldSpec): unknown {
  switch (f.kind) {
    case "selector":
      return { text: "", match: "contains" };
    case "integer":
    case "number":
      return f.min ?? 1;
    default:
      return "";
  }
}

/** The form of a known step type. */
function StepForm(p: {
  step: Obj;
  spec: StepTypeSpec;
  path: string;
  found: Found[];
  fields: FieldSpec[];
  onChange: (s: unknown) => void;
}) {
  const ctx = useContext(EditorContext);
  const { step, spec } = p;
  const set = (key: string, v: unknown) => {
    const next: Obj = { ...step };
    if (v === undefined) delete next[key];
    else next[key] = v;
    p.onChange(next);
  };
  const changeType = (t: string) => {
    const to = specOf(t);
    if (!to || t === step.type) return;
    const next = to.template();
    const takes = new Set([...paramKeys(to), ...COMMON_FIELDS.map((f) => f.key), ...(to.retry ? ["retry"] : [])]);
    for (const [k, v] of Object.entries(step)) if (k !== "type" && takes.has(k)) next[k] = v;
    p.onChange(next);
  };
  const variant = variantOf(spec, step);
  const setVariant = (key: string) => {
    const option = spec.variants?.options.find((o) => o.key === key);
    if (!option || option === variant) return;
    const next: Obj = { ...step };
    for (const o of spec.variants!.options) for (const f of o.fields) delete next[f.key];
    for (const f of option.fields) if (f.required) next[f.key] = variantDefault(f);
    p.onChange(next);
  };
  const known = new Set(["type", ...paramKeys(spec), ...COMMON_FIELDS.map((f) => f.key), ...(spec.retry ? ["retry"] : [])]);
  const unknown = Object.keys(step).filter((k) => !known.has(k));
  const common = spec.retry ? [...COMMON_FIELDS.map((f) => f.key), "retry"] : COMMON_FIELDS.map((f) => f.key);
  const commonSet = common.some((k) => step[k] !== undefined || fieldIssues(p.found, k).length > 0);
  const types = typesFor(ctx.library);

  return (
    <>
      <div class="step-form-row">
        <div class="pfield">
          <label for={`${p.path}-type`}>Type</label>
          <select id={`${p.path}-type`} value={spec.type} disabled={ctx.readOnly} onChange={(e) => changeType(e.currentTarget.value)} data-testid="step-type">
            {!types.some((t) => t.type === spec.type) && <option value={spec.type}>{spec.type} (not allowed here)</option>}
            {types.map((t) => (
              <option key={t.type} value={t.type}>
                {t.type}
              </option>
            ))}
          </select>
          <small class="muted">{spec.does}</small>
        </div>
        {spec.variants && (
          <fieldset class="variants">
            <legend>{spec.variants.label}</legend>
            {spec.variants.options.map((o) => (
              <label key={o.key} class="check">
                <input type="radio" name={`${p.path}-variant`} checked={o === variant} disabled={ctx.readOnly} onChange={() => setVariant(o.key)} />
                {o.label}
              </label>
            ))}
          </fieldset>
        )}
      </div>
      <div class="step-fields">
        {p.fields.map((f) => (
          <Field key={f.key} spec={f} path={p.path} value={step[f.key]} found={p.found} onChange={(v) => set(f.key, v)} />
        ))}
      </div>
      {unknown.length > 0 && !ctx.readOnly && (
        <div class="unknown-fields">
          <span class="muted small">Fields {spec.type} does not take:</span>
          {unknown.map((k) => (
            <button key={k} type="button" class="btn btn-small" onClick={() => set(k, undefined)}>
              Remove “{k}”
            </button>
          ))}
        </div>
      )}
      <details class="step-more" open={commonSet}>
        <summary>{spec.retry ? "Timeout, on error, retry, note" : "Timeout, on error, note"}</summary>
        <div class="step-fields">
          {COMMON_FIELDS.map((f) => (
            <Field key={f.key} spec={f} path={p.path} value={step[f.key]} found={p.found} onChange={(v) => set(f.key, v)} />
          ))}
        </div>
        {spec.retry && (
          <RetryFields fields={RETRY_FIELDS} value={step.retry} onChange={(v) => set("retry", v)} issues={fieldIssues(p.found, "retry")} readOnly={ctx.readOnly} />
        )}
      </details>
    </>
  );
}

/** One parameter: the control its kind calls for. */
function Field({ spec, path, value, found, onChange }: { spec: FieldSpec; path: string; value: unknown; found: Found[]; onChange: (v: unknown) => void }) {
  const ctx = useContext(EditorContext);
  const issues = fieldIssues(found, spec.key);
  const props: FieldProps = { spec, value, onChange, issues, readOnly: ctx.readOnly };
  switch (spec.kind) {
    case "steps":
      return (
        <div class="nested" data-field={spec.key}>
          <IssueLines issues={issues.filter((i) => i.field === spec.key)} />
          {Array.isArray(value) || value === undefined ? (
            <StepList path={`${path}.${spec.key}`} steps={(value as unknown[] | undefined) ?? []} onChange={onChange} title={spec.label} />
          ) : (
            <button type="button" class="btn btn-small" onClick={() => onChange([])}>
              Replace “{spec.key}” (not a list) with an empty list
            </button>
          )}
        </div>
      );
    case "selector":
      return <SelectorFields label={spec.label} help={spec.help} value={value} onChange={onChange} issues={relative(found, spec.key)} required={!!spec.required} />;
    case "number":
    case "integer":
      return <NumberField {...props} />;
    case "boolean":
      return <BoolField {...props} />;
    case "choice":
      return <ChoiceField {...props} />;
    case "strings":
      return <StringsField {...props} />;
    case "points":
      return <PointsField {...props} />;
    case "items":
      return <ItemsField {...props} />;
    default:
      return <TextField {...props} />;
  }
}

/** A step the form does not understand (not an object, or an unknown type): its JSON, editable,
 * and a type to turn it into. */
function UnknownStep({ step, onChange }: { step: unknown; onChange: (s: unknown) => void }) {
  const ctx = useContext(EditorContext);
  const [text, setText] = useState(() => JSON.stringify(step, null, 2));
  const [bad, setBad] = useState("");
  return (
    <div class="unknown-step">
      <p class="muted small">The form does not know this step; edit its JSON, or choose a type.</p>
      <textarea
        class="mono"
        rows={Math.min(10, text.split("\n").length + 1)}
        value={text}
        readOnly={ctx.readOnly}
        spellcheck={false}
        aria-label="The step as JSON"
        onInput={(e) => {
          const t = e.currentTarget.value;
          setText(t);
          try {
            const v = JSON.parse(t) as unknown;
            setBad("");
            onChange(v);
          } catch (err) {
            setBad(err instanceof Error ? err.message : String(err));
          }
        }}
      />
      {bad && <p class="issue issue-error">{bad}</p>}
      {!ctx.readOnly && (
        <select
          aria-label="Make it a step of type"
          value=""
          onChange={(e) => {
            const s = specOf(e.currentTarget.value);
            if (s) onChange(s.template());
          }}
        >
          <option value="">Make it a…</option>
          {typesFor(ctx.library).map((t) => (
            <option key={t.type} value={t.type}>
              {t.type}
            </option>
          ))}
        </select>
      )}
    </div>
  );
}
