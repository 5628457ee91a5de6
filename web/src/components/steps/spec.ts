// The step language as the editor knows it (docs/tasks.md; the server's validator is the
// authority): every step type with its parameters, which form control each gets, and the
// defaults a new step starts with. The e2e test `steps-spec.spec.ts` checks this table against the
// JSON Schema generated from the Rust types (docs/task.schema.json), so neither drifts.

/** The kinds of parameter a form can edit. */
export type FieldKind =
  | "text" // one line
  | "textarea" // several lines, typed as is
  | "keys" // the key syntax of key_event
  | "number" // seconds, fractions
  | "integer"
  | "boolean"
  | "choice"
  | "selector"
  | "strings" // a list of texts (open_app's args)
  | "points" // gesture's points
  | "items" // for_each's items: texts, or objects as JSON, one per line
  | "steps"; // nested steps (then, else, steps)

/** One parameter of a step type. */
export interface FieldSpec {
  key: string;
  label: string;
  kind: FieldKind;
  required?: boolean;
  help?: string;
  choices?: readonly string[];
  /** What the server uses when the field is left out (shown as the placeholder). */
  default?: string | number | boolean;
  min?: number;
  max?: number;
}

/** A step type whose parameters come in alternatives ("exactly one of"): each alternative is
 * named by the field that selects it. */
export interface Variants {
  label: string;
  options: readonly { key: string; label: string; fields: readonly FieldSpec[] }[];
}

/** One step type. */
export interface StepTypeSpec {
  type: string;
  /** What it does, in a few words (the type menu, the card's tooltip). */
  does: string;
  /** Admitted in the action library (the sixteen library types). */
  library: boolean;
  fields: readonly FieldSpec[];
  variants?: Variants;
  /** Takes `retry` (the steps that act or wait). */
  retry?: boolean;
  /** A new step of this type. */
  template: () => Record<string, unknown>;
}

const selector = (key = "selector", label = "Control", required = true, help?: string): FieldSpec => ({
  key,
  label,
  kind: "selector",
  required,
  help,
});
const direction: FieldSpec = {
  key: "direction",
  label: "Direction",
  kind: "choice",
  required: true,
  choices: ["up", "down", "left", "right"],
  help: "The finger's way: up brings what is below into view.",
};
const amount: FieldSpec = {
  key: "amount",
  label: "Amount",
  kind: "number",
  default: 0.5,
  min: 0.01,
  max: 1,
  help: "A share of the area's height (width for left and right), 0.01–1.",
};
const area = selector("area", "Area", false, "The control to scroll inside; the window when left empty.");
const button: FieldSpec = { key: "button", label: "Button", kind: "choice", choices: ["left", "right", "middle"], default: "left" };
const double: FieldSpec = { key: "double", label: "Double-click", kind: "boolean", default: false };
const message = (required: boolean, help: string): FieldSpec => ({
  key: "message",
  label: "Message",
  kind: "textarea",
  required,
  help,
});
const emptySelector = () => ({ text: "", match: "contains" });
const maxRounds: FieldSpec = { key: "max", label: "At most rounds", kind: "integer", default: 100, min: 1, max: 1000 };
const steps = (key: string, label: string, required = true): FieldSpec => ({ key, label, kind: "steps", required });

/** The types that take `retry` (docs/tasks.md "Retries"): not wait, notify, the enders and the
 * steps that hold steps. */
const RETRYING = new Set([
  "open_app", "stop_app", "screen_on", "screen_off", "key_event", "swipe", "swipe_until", "click",
  "long_click", "wait_el", "input_text", "clipboard", "click_xy", "gesture", "keep_screen",
]);

/** Every step type, in the order of docs/tasks.md. */
const ALL_TYPES: readonly StepTypeSpec[] = [
  {
    type: "open_app",
    does: "start an application, or open a URL",
    library: true,
    fields: [],
    variants: {
      label: "Open",
      options: [
        {
          key: "app",
          label: "an application",
          fields: [
            {
              key: "app",
              label: "Application",
              kind: "text",
              required: true,
              help: "A desktop entry (mousepad, org.gnome.Calculator), an allow-listed program, or an app already open. An app with a window open is not started again: its window is selected.",
            },
            { key: "args", label: "Arguments", kind: "strings", help: "Extra command-line arguments; the app starts to open them." },
            {
              key: "title",
              label: "Window title",
              kind: "text",
              help: "When the app has windows open: the one whose title contains this, instead of the newest.",
            },
            {
              key: "new_instance",
              label: "New instance",
              kind: "boolean",
              default: false,
              help: "Start the app even when it already has a window open.",
            },
          ],
        },
        {
          key: "url",
          label: "a URL",
          fields: [
            { key: "url", label: "URL", kind: "text", required: true, help: "With its scheme: https://…, file://…, data:…" },
            { key: "new_tab", label: "In a new tab", kind: "boolean", default: false },
          ],
        },
      ],
    },
    template: () => ({ type: "open_app", app: "" }),
  },
  {
    type: "stop_app",
    does: "close an application's windows, then end its processes",
    library: true,
    fields: [
      {
        key: "app",
        label: "Application",
        kind: "text",
        required: true,
        help: "As open_app names it, or its root name; in a browser, the site's host.",
      },
    ],
    template: () => ({ type: "stop_app", app: "" }),
  },
  { type: "screen_on", does: "switch the screen on (phones)", library: true, fields: [], template: () => ({ type: "screen_on" }) },
  { type: "screen_off", does: "switch the screen off (phones)", library: true, fields: [], template: () => ({ type: "screen_off" }) },
  {
    type: "key_event",
    does: "press keys",
    library: true,
    fields: [
      {
        key: "keys",
        label: "Keys",
        kind: "keys",
        required: true,
        help: "Key syntax: ^s is Ctrl+S, {ENTER}, {TAB 3}, %{F4}; plain characters type themselves.",
      },
      selector("selector", "Focus first", false, "The control to focus before the keys; otherwise whatever has the focus."),
    ],
    template: () => ({ type: "key_event", keys: "" }),
  },
  {
    type: "swipe",
    does: "scroll or drag the view once",
    library: true,
    fields: [direction, amount, area],
    template: () => ({ type: "swipe", direction: "up" }),
  },
  {
    type: "swipe_until",
    does: "swipe until a control shows",
    library: true,
    fields: [
      selector("selector", "Until this shows"),
      direction,
      amount,
      { key: "max_swipes", label: "At most swipes", kind: "integer", default: 10, min: 1, max: 100 },
      area,
    ],
    template: () => ({ type: "swipe_until", selector: emptySelector(), direction: "up" }),
  },
  {
    type: "click",
    does: "click a control",
    library: true,
    fields: [selector(), button, double],
    template: () => ({ type: "click", selector: emptySelector() }),
  },
  {
    type: "long_click",
    does: "press a control and hold",
    library: true,
    fields: [selector(), { key: "duration_s", label: "Hold (s)", kind: "number", default: 1, min: 0.1, max: 10 }],
    template: () => ({ type: "long_click", selector: emptySelector() }),
  },
  {
    type: "wait_el",
    does: "wait for a control to show, or to be gone",
    library: true,
    fields: [
      selector(),
      { key: "gone", label: "Wait until it is gone", kind: "boolean", default: false },
    ],
    template: () => ({ type: "wait_el", selector: emptySelector() }),
  },
  {
    type: "input_text",
    does: "type text into a control",
    library: true,
    fields: [
      selector(),
      { key: "text", label: "Text", kind: "textarea", required: true, help: "Typed as it is (no key syntax); {{name}} inserts a variable." },
      { key: "mode", label: "Mode", kind: "choice", choices: ["replace", "append"], default: "replace" },
    ],
    template: () => ({ type: "input_text", selector: { type: "edit", text: "", match: "contains" }, text: "" }),
  },
  {
    type: "clipboard",
    does: "set the clipboard, or read it into a variable",
    library: true,
    fields: [],
    variants: {
      label: "Clipboard",
      options: [
        { key: "set", label: "set it", fields: [{ key: "set", label: "Text", kind: "textarea", required: true }] },
        {
          key: "read_into",
          label: "read it into a variable",
          fields: [{ key: "read_into", label: "Variable", kind: "text", required: true, help: "Later steps use it as {{name}}." }],
        },
      ],
    },
    template: () => ({ type: "clipboard", set: "" }),
  },
  {
    type: "wait",
    does: "pause",
    library: true,
    fields: [{ key: "seconds", label: "Seconds", kind: "number", required: true, min: 0, max: 300, help: "0–300. Prefer wait_el for anything on screen." }],
    template: () => ({ type: "wait", seconds: 1 }),
  },
  {
    type: "loop",
    does: "repeat steps",
    library: true,
    fields: [steps("steps", "Each round")],
    variants: {
      label: "Repeat",
      options: [
        { key: "times", label: "a number of times", fields: [{ key: "times", label: "Times", kind: "integer", required: true, min: 1, max: 1000 }] },
        { key: "while", label: "while a control shows", fields: [selector("while", "While this shows"), maxRounds] },
        { key: "until", label: "until a control shows", fields: [selector("until", "Until this shows"), maxRounds] },
      ],
    },
    template: () => ({ type: "loop", times: 2, steps: [] }),
  },
  {
    type: "group",
    does: "named sub-steps",
    library: true,
    fields: [{ key: "name", label: "Name", kind: "text", required: true }, steps("steps", "Steps")],
    template: () => ({ type: "group", name: "", steps: [] }),
  },
  {
    type: "if_el",
    does: "steps depending on whether a control shows",
    library: true,
    fields: [
      selector("selector", "If this shows"),
      { key: "gone", label: "Take “then” when it is gone instead", kind: "boolean", default: false },
      { key: "wait_s", label: "Wait up to (s)", kind: "number", default: 0, min: 0, max: 300 },
      steps("then", "Then"),
      steps("else", "Else", false),
    ],
    template: () => ({ type: "if_el", selector: emptySelector(), then: [] }),
  },
  {
    type: "for_each",
    does: "steps once per item of a list, a variable or a CSV file",
    library: false,
    fields: [
      { key: "as", label: "Each item as", kind: "text", default: "item", help: "The name a round's item goes by: {{item}}, {{item.field}}, a CSV column as {{row.Header}}." },
      steps("steps", "Each round"),
    ],
    variants: {
      label: "For each",
      options: [
        {
          key: "items",
          label: "item of a list",
          fields: [{ key: "items", label: "Items", kind: "items", required: true, help: "One per line: a text, or an object such as {\"name\": \"Zoë\", \"qty\": 2}. At most 1,000." }],
        },
        {
          key: "variable",
          label: "item of a variable",
          fields: [{ key: "variable", label: "Variable", kind: "text", required: true, help: "Holding a JSON array, or one item per line." }],
        },
        {
          key: "csv",
          label: "row of a CSV file",
          fields: [{ key: "csv", label: "CSV file", kind: "text", required: true, help: "Its absolute path, in the allowed folders (DEFT_DOCUMENT_DIRS, else ~/Documents); the first row is the header." }],
        },
      ],
    },
    template: () => ({ type: "for_each", items: [], steps: [] }),
  },
  {
    type: "click_xy",
    does: "click a point given as window fractions",
    library: false,
    fields: [
      { key: "x", label: "x (0–1)", kind: "number", required: true, min: 0, max: 1, help: "From the left edge, as a fraction of the width." },
      { key: "y", label: "y (0–1)", kind: "number", required: true, min: 0, max: 1, help: "From the top edge, as a fraction of the height." },
      button,
      double,
    ],
    template: () => ({ type: "click_xy", x: 0.5, y: 0.5 }),
  },
  {
    type: "gesture",
    does: "move through points given as window fractions",
    library: false,
    fields: [
      { key: "points", label: "Points", kind: "points", required: true, help: "2–50 points, each x and y from 0 to 1." },
      { key: "duration_s", label: "Duration (s)", kind: "number", default: 0.5, min: 0.05, max: 10 },
    ],
    template: () => ({ type: "gesture", points: [{ x: 0.5, y: 0.8 }, { x: 0.5, y: 0.2 }] }),
  },
  {
    type: "keep_screen",
    does: "keep the screen awake, or let it sleep",
    library: false,
    fields: [{ key: "on", label: "Keep awake", kind: "boolean", required: true }],
    template: () => ({ type: "keep_screen", on: true }),
  },
  {
    type: "notify",
    does: "send a notification to the console",
    library: false,
    fields: [
      message(true, "What it says; {{name}} inserts a variable."),
      { key: "level", label: "Level", kind: "choice", choices: ["info", "warning", "error"], default: "info" },
    ],
    template: () => ({ type: "notify", message: "" }),
  },
  {
    type: "stop_self",
    does: "end the run here, as stopped",
    library: false,
    fields: [message(false, "Why, for the run history.")],
    template: () => ({ type: "stop_self" }),
  },
  {
    type: "mark_done",
    does: "end the run here, as completed",
    library: false,
    fields: [message(false, "Why, for the run history.")],
    template: () => ({ type: "mark_done" }),
  },
];

/** Every step type, in the order of docs/tasks.md. */
export const STEP_TYPES: readonly StepTypeSpec[] = ALL_TYPES.map((t) => ({ ...t, retry: RETRYING.has(t.type) }));

/** The fields of a step's `retry` (docs/tasks.md "Retries"). */
export const RETRY_FIELDS: readonly FieldSpec[] = [
  { key: "times", label: "Retries", kind: "integer", required: true, min: 1, max: 10, help: "How many more times to try after a failure, 1–10." },
  { key: "delay_s", label: "Pause (s)", kind: "number", default: 0, min: 0, max: 600, help: "Before the first retry, 0–600." },
  { key: "backoff", label: "Backoff", kind: "number", default: 1, min: 1, max: 10, help: "Each later pause is this times the one before, 1–10." },
];

/** The fields every step takes. */
export const COMMON_FIELDS: readonly FieldSpec[] = [
  {
    key: "timeout_s",
    label: "Timeout (s)",
    kind: "number",
    min: 0,
    max: 3600,
    help: "The longest the step may take; for wait_el how long it waits (default 10, at most 300).",
  },
  {
    key: "on_error",
    label: "On error",
    kind: "choice",
    choices: ["stop", "continue"],
    help: "What a failure does; default: the enclosing step's, else the task's.",
  },
  { key: "note", label: "Note", kind: "text", help: "A remark for people, shown in the run history." },
];

/** The keys of nested step lists. */
export const CHILD_LISTS = ["steps", "then", "else"] as const;

/** The words a selector's `type` takes (docs/observation.md "Control types"). */
export const CONTROL_TYPES = [
  "button", "edit", "text", "checkbox", "radio", "combobox", "list", "listitem", "menu", "menubar",
  "menuitem", "tab", "tabitem", "link", "slider", "spinner", "progressbar", "scrollbar", "tree",
  "treeitem", "table", "row", "cell", "columnheader", "image", "toolbar", "statusbar", "dialog",
  "window", "heading", "document", "group", "other",
] as const;

/** The id of the `<datalist>` of control types the step editor renders once. */
export const CONTROL_TYPES_LIST = "deft-control-types";

/** How a selector's text compares. */
export const MATCH_MODES = ["contains", "exact", "fuzzy", "regex"] as const;

const BY_TYPE = new Map(STEP_TYPES.map((t) => [t.type, t]));

/** The spec of a step type, if it is one. */
export function specOf(type: unknown): StepTypeSpec | undefined {
  return typeof type === "string" ? BY_TYPE.get(type) : undefined;
}

/** The types a list may hold (library mode: the sixteen library types). */
export function typesFor(library: boolean): readonly StepTypeSpec[] {
  return library ? STEP_TYPES.filter((t) => t.library) : STEP_TYPES;
}

/** The variant a step uses now (the first whose key it has; else the first). */
export function variantOf(spec: StepTypeSpec, step: Record<string, unknown>) {
  const options = spec.variants?.options ?? [];
  return options.find((o) => step[o.key] !== undefined) ?? options[0];
}

/** Every parameter key a type takes, variants included (not the common ones). */
export function paramKeys(spec: StepTypeSpec): string[] {
  const keys = spec.fields.map((f) => f.key);
  for (const o of spec.variants?.options ?? []) keys.push(...o.fields.map((f) => f.key));
  return [...new Set(keys)];
}
