// The form controls of step parameters: each shows its value, hands edits back (`undefined`
// leaves the field out of the step) and shows the validator's problems under itself.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useState } from "preact/hooks";
import type { Found } from "./issues";
import type { FieldSpec } from "./spec";

/** What every parameter control takes. */
export interface FieldProps {
  spec: FieldSpec;
  value: unknown;
  onChange: (value: unknown) => void;
  issues: Found[];
  readOnly: boolean;
}

/** The problems of a field, under it. */
export function IssueLines({ issues, id }: { issues: Found[]; id?: string }) {
  if (issues.length === 0) return null;
  return (
    <ul class="issue-lines" id={id}>
      {issues.map((i, k) => (
        <li key={k} class={`issue issue-${i.severity}`} data-testid="field-issue" data-severity={i.severity}>
          <span class="issue-mark" aria-hidden="true">
            {i.severity === "error" ? "✕" : "!"}
          </span>
          <span class="sr-only">{i.severity}: </span>
          {i.message}
        </li>
      ))}
    </ul>
  );
}

/** A labelled row: the label, the control, the help line and the problems. */
export function FieldRow({
  id,
  spec,
  issues,
  children,
  wide,
}: {
  id: string;
  spec: Pick<FieldSpec, "label" | "help" | "required" | "key">;
  issues: Found[];
  children: ComponentChildren;
  wide?: boolean;
}) {
  const worst = issues.some((i) => i.severity === "error") ? "error" : issues.length ? "warning" : "";
  return (
    <div class={`pfield${wide ? " pfield-wide" : ""}${worst ? ` pfield-${worst}` : ""}`} data-field={spec.key}>
      <label for={id}>
        {spec.label}
        {spec.required && (
          <span class="req" title="required">
            *
          </span>
        )}
      </label>
      {children}
      {spec.help && <small class="muted">{spec.help}</small>}
      <IssueLines issues={issues} id={`${id}-issues`} />
    </div>
  );
}

/** The attributes that tie a control to its label and problems. */
export function aria(id: string, issues: Found[]) {
  return {
    id,
    "aria-invalid": issues.some((i) => i.severity === "error") ? ("true" as const) : undefined,
    "aria-describedby": issues.length ? `${id}-issues` : undefined,
  };
}

/** A number typed as text: a well-formed number becomes a number, empty leaves the field out,
 * anything else is kept as typed (the validator then says what it expected). */
export function parseNumber(text: string, integer: boolean): unknown {
  const t = text.trim();
  if (t === "") return undefined;
  const ok = integer ? /^-?\d+$/ : /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
  return ok.test(t) ? Number(t) : text;
}

function shown(v: unknown): string {
  return v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v);
}

/** A number (seconds, a fraction, a count). */
export function NumberField({ spec, value, onChange, issues, readOnly }: FieldProps) {
  const id = useId();
  const integer = spec.kind === "integer";
  const [text, setText] = useState(shown(value));
  // Follow outside changes (another tab, the raw JSON), not the ones this field made.
  useEffect(() => {
    if (parseNumber(text, integer) !== value) setText(shown(value));
  }, [value]);
  return (
    <FieldRow id={id} spec={spec} issues={issues}>
      <input
        {...aria(id, issues)}
        class="num"
        inputMode={integer ? "numeric" : "decimal"}
        value={text}
        readOnly={readOnly}
        placeholder={spec.default !== undefined ? String(spec.default) : ""}
        onInput={(e) => {
          const t = e.currentTarget.value;
          setText(t);
          onChange(parseNumber(t, integer));
        }}
      />
    </FieldRow>
  );
}

/** One line of text, several lines, or keys. Left empty, an optional field is left out. */
export function TextField({ spec, value, onChange, issues, readOnly }: FieldProps) {
  const id = useId();
  const text = shown(value);
  const set = (t: string) => onChange(t === "" && !spec.required ? undefined : t);
  const common = { ...aria(id, issues), value: text, readOnly, spellcheck: false };
  return (
    <FieldRow id={id} spec={spec} issues={issues} wide={spec.kind === "textarea"}>
      {spec.kind === "textarea" ? (
        <textarea
          {...common}
          rows={Math.min(6, Math.max(2, text.split("\n").length))}
          onInput={(e) => set(e.currentTarget.value)}
        />
      ) : (
        <input {...common} class={spec.kind === "keys" ? "mono" : undefined} onInput={(e) => set(e.currentTarget.value)} />
      )}
    </FieldRow>
  );
}

/** One of a few words; "default" leaves the field out. */
export function ChoiceField({ spec, value, onChange, issues, readOnly }: FieldProps) {
  const id = useId();
  const v = typeof value === "string" ? value : value === undefined ? "" : shown(value);
  const known = spec.choices ?? [];
  return (
    <FieldRow id={id} spec={spec} issues={issues}>
      <select {...aria(id, issues)} value={v} disabled={readOnly} onChange={(e) => onChange(e.currentTarget.value || undefined)}>
        {!spec.required && <option value="">{spec.default !== undefined ? `default (${spec.default})` : "default"}</option>}
        {spec.required && v === "" && <option value="">— choose —</option>}
        {v !== "" && !known.includes(v) && <option value={v}>{v} (not valid)</option>}
        {known.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </FieldRow>
  );
}

/** A yes/no; an optional one that is off is left out. */
export function BoolField({ spec, value, onChange, issues, readOnly }: FieldProps) {
  const id = useId();
  return (
    <div class="pfield pfield-check" data-field={spec.key}>
      <label class="check" for={id}>
        <input
          {...aria(id, issues)}
          type="checkbox"
          checked={value === true}
          disabled={readOnly}
          onChange={(e) => onChange(e.currentTarget.checked ? true : spec.required ? false : undefined)}
        />
        {spec.label}
      </label>
      {spec.help && <small class="muted">{spec.help}</small>}
      <IssueLines issues={issues} id={`${id}-issues`} />
    </div>
  );
}

/** A list of texts, one per line (open_app's arguments). */
export function StringsField({ spec, value, onChange, issues, readOnly }: FieldProps) {
  const id = useId();
  const lines = Array.isArray(value) ? value.map(shown).join("\n") : shown(value);
  return (
    <FieldRow id={id} spec={{ ...spec, help: `${spec.help ?? ""} One per line.`.trim() }} issues={issues} wide>
      <textarea
        {...aria(id, issues)}
        rows={Math.min(5, Math.max(2, lines.split("\n").length))}
        value={lines}
        readOnly={readOnly}
        spellcheck={false}
        onInput={(e) => {
          const t = e.currentTarget.value;
          onChange(t === "" ? undefined : t.split("\n"));
        }}
      />
    </FieldRow>
  );
}

/** Gesture points: x and y per row. */
export function PointsField({ spec, value, onChange, issues, readOnly }: FieldProps) {
  const id = useId();
  const points = Array.isArray(value) ? (value as unknown[]) : [];
  const set = (i: number, axis: "x" | "y", t: string) => {
    const next = points.map((p, j) =>
      j === i ? { ...(typeof p === "object" && p !== null ? p : {}), [axis]: parseNumber(t, false) } : p,
    );
    onChange(next);
  };
  return (
    <FieldRow id={id} spec={spec} issues={issues} wide>
      <div class="points" id={id} role="group" aria-label={spec.label}>
        {points.map((p, i) => {
          const pt = (typeof p === "object" && p !== null ? p : {}) as Record<string, unknown>;
          return (
            <div class="point" key={i}>
              <span class="muted small">{i + 1}.</span>
              <input class="num" aria-label={`point ${i + 1} x`} value={shown(pt.x)} readOnly={readOnly} onInput={(e) => set(i, "x", e.currentTarget.value)} />
              <input class="num" aria-label={`point ${i + 1} y`} value={shown(pt.y)} readOnly={readOnly} onInput={(e) => set(i, "y", e.currentTarget.value)} />
              {!readOnly && (
                <button type="button" class="btn btn-ghost btn-small" aria-label={`Remove point ${i + 1}`} onClick={() => onChange(points.filter((_, j) => j !== i))}>
                  ✕
                </button>
              )}
            </div>
          );
        })}
        {!readOnly && (
          <button type="button" class="btn btn-small" onClick={() => onChange([...points, { x: 0.5, y: 0.5 }])}>
            + Point
          </button>
        )}
      </div>
    </FieldRow>
  );
}

/** for_each's items as lines: a line that is a JSON object is an object, any other a text;
 * blank lines are no items. */
export function parseItems(text: string): unknown[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      const t = l.trim();
      if (t.startsWith("{")) {
        try {
          const v: unknown = JSON.parse(t);
          if (typeof v === "object" && v !== null && !Array.isArray(v)) return v;
        } catch {
          // Not JSON: the line is a text.
        }
      }
      return l;
    });
}

function itemLines(value: unknown): string {
  if (!Array.isArray(value)) return shown(value);
  return value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join("\n");
}

/** for_each's items, one per line (objects as JSON). */
export function ItemsField({ spec, value, onChange, issues, readOnly }: FieldProps) {
  const id = useId();
  const [text, setText] = useState(itemLines(value));
  // Follow outside changes (the raw JSON), not the ones this field made.
  useEffect(() => {
    if (JSON.stringify(parseItems(text)) !== JSON.stringify(value)) setText(itemLines(value));
  }, [value]);
  return (
    <FieldRow id={id} spec={spec} issues={issues} wide>
      <textarea
        {...aria(id, issues)}
        rows={Math.min(8, Math.max(3, text.split("\n").length))}
        value={text}
        readOnly={readOnly}
        spellcheck={false}
        onInput={(e) => {
          const t = e.currentTarget.value;
          setText(t);
          onChange(parseItems(t));
        }}
      />
    </FieldRow>
  );
}

/** A step's `retry`: off (left out), or its times, pause and backoff. */
export function RetryFields({
  fields,
  value,
  onChange,
  issues,
  readOnly,
}: {
  fields: readonly FieldSpec[];
  value: unknown;
  onChange: (value: unknown) => void;
  issues: Found[];
  readOnly: boolean;
}) {
  const id = useId();
  const on = value !== undefined;
  const retry = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const own = issues.filter((i) => i.field === "retry");
  const inner = (key: string) =>
    issues.filter((i) => i.field === `retry.${key}` || i.field.startsWith(`retry.${key}.`)).map((i) => ({ ...i, field: key }));
  const set = (key: string, v: unknown) => {
    const next: Record<string, unknown> = { ...retry };
    if (v === undefined) delete next[key];
    else next[key] = v;
    onChange(next);
  };
  return (
    <fieldset class="retry-fields" data-field="retry">
      <legend>
        <label class="check" for={id}>
          <input id={id} type="checkbox" checked={on} disabled={readOnly} onChange={(e) => onChange(e.currentTarget.checked ? { times: 2 } : undefined)} data-testid="retry-toggle" />
          Retry when it fails
        </label>
      </legend>
      <IssueLines issues={own} />
      {on && (
        <div class="step-fields">
          {fields.map((f) => (
            <NumberField key={f.key} spec={f} value={retry[f.key]} onChange={(v) => set(f.key, v)} issues={inner(f.key)} readOnly={readOnly} />
          ))}
        </div>
      )}
    </fieldset>
  );
}
