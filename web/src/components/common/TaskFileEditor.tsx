// A whole task file (docs/tasks.md "The task file"): its name, device, on_error, timeout and
// variables as a form, its steps in the step editor, or all of it as raw JSON — both edit the same
// draft, and the validator's problems are listed at the top and shown where they belong.
// Reusable: designer mode's draft review shows a task file the same way, and the action library
// an action (`kind: "action"`: its name, aliases, app, description and variables, its steps in
// library mode).
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api";
import type { TaskStepView } from "../../task-run-state";
import type { Device, Issue } from "../../types";
import { IssueLines } from "../steps/Fields";
import { fileIssues, splitPath, type Issues } from "../steps/issues";
import { StepEditor } from "../steps/StepEditor";
import { deviceName } from "../DevicePicker";

type Obj = Record<string, unknown>;

/** The file as edited: its text (what is saved and validated) and, when it parses to an object,
 * its value (what the form edits). */
export interface TaskDraft {
  text: string;
  value: Obj | null;
  /** Why `value` is null: the text is not JSON, or not an object. */
  parseError: string;
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A draft of a value the form made. */
export function draftOf(value: Obj): TaskDraft {
  return { text: JSON.stringify(value, null, 2), value, parseError: "" };
}

/** A draft of text a person typed. */
export function draftOfText(text: string): TaskDraft {
  try {
    const v = JSON.parse(text) as unknown;
    return isObj(v) ? { text, value: v, parseError: "" } : { text, value: null, parseError: "the file is a JSON object: {\"name\": …, \"steps\": […]}" };
  } catch (e) {
    return { text, value: null, parseError: e instanceof Error ? e.message : String(e) };
  }
}

/** Props of the editor. */
export interface TaskFileEditorProps {
  draft: TaskDraft;
  onChange: (d: TaskDraft) => void;
  issues: Issues;
  devices: Device[];
  /** The device a file without `device` runs on (the server's default). */
  defaultDevice?: string;
  readOnly?: boolean;
  /** A run's result of each step, by path (designer mode's "try it", an action's try). */
  results?: ReadonlyMap<string, TaskStepView>;
  /** A task file (the default), or an action of the library. */
  kind?: "task" | "action";
  /** Run to here / run this step from the step cards (none: the cards offer no run). */
  runStep?: (path: string, how: "until" | "only") => void;
  /** Why those cannot start now; empty when they can. */
  runNote?: string;
}

/** The offset in `text` of a 1-based line and column. */
function offsetOf(text: string, line: number, column: number): number {
  const lines = text.split("\n");
  let at = 0;
  for (let i = 0; i < Math.min(line - 1, lines.length); i++) at += lines[i].length + 1;
  return Math.min(text.length, at + Math.max(0, column - 1));
}

/** The editor. */
export function TaskFileEditor({ draft, onChange, issues, devices, defaultDevice, readOnly, results, kind = "task", runStep, runNote }: TaskFileEditorProps) {
  const [tab, setTab] = useState<"form" | "json">("form");
  const [reveal, setReveal] = useState<{ path: string; n: number } | undefined>();
  const raw = useRef<HTMLTextAreaElement>(null);
  const value = draft.value;
  const formOk = value !== null;
  const showForm = tab === "form" && formOk;

  const set = (key: string, v: unknown) => {
    if (!value) return;
    const next: Obj = { ...value };
    if (v === undefined) delete next[key];
    else next[key] = v;
    onChange(draftOf(next));
  };

  /** Takes a person to a problem: its step in the form, a file field, or its place in the JSON. */
  const go = (i: Issue) => {
    if (i.line !== undefined && i.line !== null) {
      setTab("json");
      requestAnimationFrame(() => {
        const ta = raw.current;
        if (!ta) return;
        const at = offsetOf(draft.text, i.line!, i.column ?? 1);
        ta.focus();
        ta.setSelectionRange(at, at);
      });
      return;
    }
    if (!formOk) return;
    setTab("form");
    const step = splitPath(i.path).step;
    if (step) {
      setReveal((r) => ({ path: step, n: (r?.n ?? 0) + 1 }));
    } else {
      requestAnimationFrame(() => document.getElementById(`task-${i.path.split(/[.[]/)[0]}`)?.focus());
    }
  };

  const device = value && typeof value.device === "string" ? value.device : "";
  const steps = value ? value.steps : undefined;

  return (
    <div class="task-file-editor">
      <IssueSummary issues={issues} onGo={go} />
      <div
        class="tabs"
        role="tablist"
        aria-label="Edit as"
        onKeyDown={(e) => {
          // ← and → move between the tabs, as a tab list does.
          if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
          const next = showForm ? "json" : "form";
          if (next === "form" && !formOk) return;
          e.preventDefault();
          setTab(next);
          requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-testid="tab-${next}"]`)?.focus());
        }}
      >
        <button
          type="button"
          role="tab"
          aria-selected={showForm}
          tabIndex={showForm ? 0 : -1}
          class={showForm ? "tab tab-on" : "tab"}
          disabled={!formOk}
          title={formOk ? "" : `Fix the JSON first: ${draft.parseError}`}
          onClick={() => setTab("form")}
          data-testid="tab-form"
        >
          Steps
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={!showForm}
          tabIndex={!showForm ? 0 : -1}
          class={!showForm ? "tab tab-on" : "tab"}
          onClick={() => setTab("json")}
          data-testid="tab-json"
        >
          JSON
        </button>
      </div>
      {showForm && value ? (
        <div class="task-form" role="tabpanel">
          {kind === "action" ? (
            <ActionFields value={value} set={set} issues={issues} readOnly={!!readOnly} />
          ) : (
            <TaskFields value={value} set={set} issues={issues} readOnly={!!readOnly} devices={devices} defaultDevice={defaultDevice} />
          )}
          <Variables value={value.variables} onChange={(v) => set("variables", v)} issues={fileIssues(issues, "variables")} readOnly={!!readOnly} />
          {Array.isArray(steps) || steps === undefined ? (
            <StepEditor
              value={(steps as unknown[] | undefined) ?? []}
              onChange={(s) => set("steps", s)}
              errors={issues.errors}
              warnings={issues.warnings}
              readOnly={readOnly}
              device={device || defaultDevice}
              reveal={reveal}
              results={results}
              runStep={runStep}
              runNote={runNote}
              library={kind === "action"}
            />
          ) : (
            <div class="banner banner-error">
              “steps” is not a list.{" "}
              <button type="button" class="link" onClick={() => set("steps", [])}>
                Replace it with an empty list
              </button>
            </div>
          )}
        </div>
      ) : (
        <div class="task-json" role="tabpanel">
          {draft.parseError && (
            <p class="issue issue-error" data-testid="json-parse-error">
              {draft.parseError}
            </p>
          )}
          <textarea
            ref={raw}
            class="mono json-text"
            aria-label={kind === "action" ? "The action as JSON" : "The task file as JSON"}
            spellcheck={false}
            readOnly={readOnly}
            value={draft.text}
            rows={Math.min(40, Math.max(12, draft.text.split("\n").length + 2))}
            onInput={(e) => onChange(draftOfText(e.currentTarget.value))}
            data-testid="task-json"
          />
        </div>
      )}
    </div>
  );
}

/** What a field row of the file needs. */
interface FieldsProps {
  value: Obj;
  set: (key: string, v: unknown) => void;
  issues: Issues;
  readOnly: boolean;
}

/** A task file's own fields: name, device, on_error, run timeout. */
function TaskFields({ value, set, issues, readOnly, devices, defaultDevice }: FieldsProps & { devices: Device[]; defaultDevice?: string }) {
  const device = typeof value.device === "string" ? value.device : "";
  return (
    <div class="task-meta">
      <MetaField id="task-name" label="Name" issues={fileIssues(issues, "name")} wide>
        <input
          id="task-name"
          value={typeof value.name === "string" ? value.name : ""}
          readOnly={readOnly}
          required
          onInput={(e) => set("name", e.currentTarget.value)}
          data-testid="task-name"
        />
      </MetaField>
      <MetaField id="task-device" label="Device" issues={fileIssues(issues, "device")}>
        <select id="task-device" value={device} disabled={readOnly} onChange={(e) => set("device", e.currentTarget.value || undefined)} data-testid="task-device">
          <option value="">default{defaultDevice ? ` (${defaultDevice})` : ""}</option>
          {device && !devices.some((d) => d.id === device) && <option value={device}>{device} (not connected)</option>}
          {devices.map((d) => (
            <option key={d.id} value={d.id}>
              {deviceName(d)}
            </option>
          ))}
        </select>
      </MetaField>
      <MetaField id="task-on_error" label="On error" issues={fileIssues(issues, "on_error")}>
        <select id="task-on_error" value={typeof value.on_error === "string" ? value.on_error : ""} disabled={readOnly} onChange={(e) => set("on_error", e.currentTarget.value || undefined)}>
          <option value="">stop (default)</option>
          <option value="stop">stop</option>
          <option value="continue">continue</option>
        </select>
      </MetaField>
      <MetaField id="task-timeout_s" label="Run timeout (s)" issues={fileIssues(issues, "timeout_s")}>
        <input
          id="task-timeout_s"
          class="num"
          inputMode="decimal"
          placeholder="3600"
          value={value.timeout_s === undefined ? "" : String(value.timeout_s)}
          readOnly={readOnly}
          onInput={(e) => {
            const t = e.currentTarget.value.trim();
            set("timeout_s", t === "" ? undefined : Number.isFinite(Number(t)) ? Number(t) : t);
          }}
        />
      </MetaField>
    </div>
  );
}

/** The items of a comma-separated list. */
function splitList(text: string): string[] {
  return text
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);
}

/** An action's own fields: name, aliases (comma-separated), app, description. */
function ActionFields({ value, set, issues, readOnly }: FieldsProps) {
  const aliases = Array.isArray(value.aliases) ? value.aliases.filter((a): a is string => typeof a === "string") : [];
  // The aliases as typed (a trailing comma stays while the person types), unless the list was
  // changed elsewhere (the JSON tab).
  const [aliasText, setAliasText] = useState(aliases.join(", "));
  const shown = splitList(aliasText).join("\n") === aliases.join("\n") ? aliasText : aliases.join(", ");
  const text = (key: string) => (typeof value[key] === "string" ? (value[key] as string) : "");
  return (
    <div class="task-meta">
      <MetaField id="task-name" label="Name" issues={fileIssues(issues, "name")} wide>
        <input id="task-name" value={text("name")} readOnly={readOnly} required onInput={(e) => set("name", e.currentTarget.value)} data-testid="task-name" />
      </MetaField>
      <MetaField id="task-aliases" label="Aliases (comma-separated)" issues={fileIssues(issues, "aliases")} wide>
        <input
          id="task-aliases"
          value={shown}
          readOnly={readOnly}
          placeholder="other names a task may use for it"
          onInput={(e) => {
            const t = e.currentTarget.value;
            setAliasText(t);
            const list = splitList(t);
            set("aliases", list.length ? list : undefined);
          }}
          data-testid="action-aliases"
        />
      </MetaField>
      <MetaField id="task-app" label="App" issues={fileIssues(issues, "app")}>
        <input id="task-app" value={text("app")} readOnly={readOnly} placeholder="the app it works in" onInput={(e) => set("app", e.currentTarget.value || undefined)} data-testid="action-app" />
      </MetaField>
      <MetaField id="task-description" label="What it does" issues={fileIssues(issues, "description")} wide>
        <textarea
          id="task-description"
          rows={2}
          maxLength={500}
          value={text("description")}
          readOnly={readOnly}
          onInput={(e) => set("description", e.currentTarget.value || undefined)}
          data-testid="action-description"
        />
      </MetaField>
    </div>
  );
}

/** A labelled field of the task file with its problems. */
function MetaField(p: { id: string; label: string; issues: ReturnType<typeof fileIssues>; wide?: boolean; children: ComponentChildren }) {
  const bad = p.issues.some((i) => i.severity === "error");
  return (
    <div class={`pfield${p.wide ? " grow" : ""}${bad ? " pfield-error" : ""}`}>
      <label for={p.id}>{p.label}</label>
      {p.children}
      <IssueLines issues={p.issues} />
    </div>
  );
}

/** The secret a variable names (`{"secret": "NAME"}`), if it is one. */
function secretOf(v: unknown): string | null {
  return isObj(v) && typeof v.secret === "string" ? v.secret : null;
}

/** The names of the server's secrets, for picking one (`null` until known, or when the list
 * cannot be read: the name is typed then). */
function useSecretNames(enabled: boolean): string[] | null {
  const [names, setNames] = useState<string[] | null>(null);
  useEffect(() => {
    if (!enabled) return;
    api
      .secrets()
      .then((l) => setNames(l.items.map((s) => s.name)))
      .catch(() => setNames(null));
  }, [enabled]);
  return names;
}

/** A secret variable's secret: picked among the server's, or typed when they are not known. */
function SecretPick({ variable, secret, known, readOnly, onPick }: { variable: string; secret: string; known: string[] | null; readOnly: boolean; onPick: (name: string) => void }) {
  const label = `Secret of ${variable}`;
  if (!known || readOnly) {
    return <input aria-label={label} class="mono grow" value={secret} placeholder="LOGIN_PW" readOnly={readOnly} onInput={(e) => onPick(e.currentTarget.value)} />;
  }
  return (
    <select aria-label={label} class="grow" value={secret} onChange={(e) => onPick(e.currentTarget.value)}>
      {!known.includes(secret) && <option value={secret}>{secret ? `${secret} (not set on this server)` : "— pick a secret —"}</option>}
      {known.map((n) => (
        <option key={n} value={n}>
          {n}
        </option>
      ))}
    </select>
  );
}

/** The task's variables and their default values: a text, or a secret of the server by name. */
function Variables({ value, onChange, issues, readOnly }: { value: unknown; onChange: (v: unknown) => void; issues: ReturnType<typeof fileIssues>; readOnly: boolean }) {
  const vars = isObj(value) ? Object.entries(value) : [];
  const known = useSecretNames(!readOnly);
  const rename = (i: number, name: string) => onChange(Object.fromEntries(vars.map(([k, v], j) => (j === i ? [name, v] : [k, v]))));
  const setValue = (i: number, v: unknown) => onChange(Object.fromEntries(vars.map(([k, old], j) => (j === i ? [k, v] : [k, old]))));
  const setKind = (i: number, kind: string) => setValue(i, kind === "secret" ? { secret: known?.[0] ?? "" } : "");
  const remove = (i: number) => {
    const rest = vars.filter((_, j) => j !== i);
    onChange(rest.length ? Object.fromEntries(rest) : undefined);
  };
  const add = () => {
    let n = vars.length + 1;
    while (vars.some(([k]) => k === `var${n}`)) n++;
    onChange(Object.fromEntries([...vars, [`var${n}`, ""]]));
  };
  return (
    <fieldset class="variables" data-testid="variables">
      <legend>Variables</legend>
      <small class="muted">Steps use them as {"{{name}}"}; a run can give other values. A secret is typed, never shown.</small>
      {vars.map(([k, v], i) => (
        <div class="var-row" key={i}>
          <input aria-label={`Variable ${i + 1} name`} class="mono" value={k} readOnly={readOnly} onInput={(e) => rename(i, e.currentTarget.value)} />
          <span aria-hidden="true">=</span>
          <select aria-label={`Kind of ${k}`} value={secretOf(v) === null ? "text" : "secret"} disabled={readOnly} onChange={(e) => setKind(i, e.currentTarget.value)}>
            <option value="text">text</option>
            <option value="secret">secret</option>
          </select>
          {secretOf(v) === null ? (
            <input aria-label={`Value of ${k}`} class="grow" value={typeof v === "string" ? v : JSON.stringify(v)} readOnly={readOnly} onInput={(e) => setValue(i, e.currentTarget.value)} />
          ) : (
            <SecretPick variable={k} secret={secretOf(v) ?? ""} known={known} readOnly={readOnly} onPick={(name) => setValue(i, { secret: name })} />
          )}
          {!readOnly && (
            <button type="button" class="icon-btn icon-danger" aria-label={`Remove variable ${k}`} onClick={() => remove(i)}>
              ✕
            </button>
          )}
        </div>
      ))}
      {!readOnly && (
        <button type="button" class="btn btn-small" onClick={add}>
          + Variable
        </button>
      )}
      <IssueLines issues={issues} />
    </fieldset>
  );
}

/** Every problem at once, at the top: a click takes the person to it. */
export function IssueSummary({ issues, onGo }: { issues: Issues; onGo: (i: Issue) => void }) {
  const all = [
    ...issues.errors.map((i) => ({ ...i, severity: "error" as const })),
    ...issues.warnings.map((i) => ({ ...i, severity: "warning" as const })),
  ];
  if (all.length === 0) return null;
  const e = issues.errors.length;
  const w = issues.warnings.length;
  return (
    <section class={`issue-summary${e ? " issue-summary-error" : ""}`} aria-label="Problems" data-testid="issue-summary">
      <strong>
        {e > 0 && `${e} ${e === 1 ? "error" : "errors"}`}
        {e > 0 && w > 0 && " · "}
        {w > 0 && `${w} ${w === 1 ? "warning" : "warnings"}`}
      </strong>
      <ul>
        {all.map((i, k) => (
          <li key={k} class={`issue issue-${i.severity}`} data-testid="summary-issue" data-severity={i.severity}>
            <button type="button" class="link" onClick={() => onGo(i)}>
              <code>{i.path || "file"}</code>
              {i.line !== undefined && i.line !== null ? ` (line ${i.line}, column ${i.column ?? 1})` : ""}
            </button>{" "}
            {i.message}
          </li>
        ))}
      </ul>
    </section>
  );
}
