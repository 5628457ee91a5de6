// The selector picker: text, type, match, index and a nested `within`, each with the validator's
// problems at it, and "Pick from device" where the step editor knows a device to ask.
import type { ComponentChildren } from "preact";
import { useContext, useId, useState } from "preact/hooks";
import { EditorContext } from "./context";
import { aria, IssueLines, parseNumber } from "./Fields";
import type { Found } from "./issues";
import { PickFromDevice } from "./PickFromDevice";
import { CONTROL_TYPES, CONTROL_TYPES_LIST, MATCH_MODES } from "./spec";

type Obj = Record<string, unknown>;

/** The problems of `key` (`selector`) with fields made relative to it (`selector.text` → `text`). */
export function relative(found: Found[], key: string): Found[] {
  return found.flatMap((f) =>
    f.field === key
      ? [{ ...f, field: "" }]
      : f.field.startsWith(`${key}.`)
        ? [{ ...f, field: f.field.slice(key.length + 1) }]
        : [],
  );
}

/** The control-type words for the type inputs (rendered once per editor). */
export function ControlTypeList() {
  return (
    <datalist id={CONTROL_TYPES_LIST}>
      {CONTROL_TYPES.map((t) => (
        <option key={t} value={t} />
      ))}
    </datalist>
  );
}

/** One field of a selector: its label, control and problems. */
function Cell(p: { id: string; label: string; issues: Found[]; grow?: boolean; children: ComponentChildren }) {
  const bad = p.issues.some((i) => i.severity === "error");
  return (
    <div class={`pfield${p.grow ? " grow" : ""}${bad ? " pfield-error" : ""}`}>
      <label for={p.id}>{p.label}</label>
      {p.children}
      <IssueLines issues={p.issues} id={`${p.id}-issues`} />
    </div>
  );
}

/** Props of a selector's fields. */
export interface SelectorFieldsProps {
  label: string;
  help?: string;
  value: unknown;
  onChange: (v: unknown) => void;
  /** Problems relative to this selector (`""` the selector itself, `text`, `within.type`). */
  issues: Found[];
  required: boolean;
  /** `within` nesting, from 0. */
  depth?: number;
}

/** A selector's fields. */
export function SelectorFields({ label, help, value, onChange, issues, required, depth = 0 }: SelectorFieldsProps) {
  const ctx = useContext(EditorContext);
  const id = useId();
  const [picking, setPicking] = useState(false);
  const readOnly = ctx.readOnly;
  const own = issues.filter((i) => i.field === "");
  const at = (k: string) => issues.filter((i) => i.field === k || i.field.startsWith(`${k}.`));
  const sel: Obj = value && typeof value === "object" && !Array.isArray(value) ? (value as Obj) : {};
  const present = value !== undefined && value !== null;

  if (!present && !required) {
    return (
      <div class="pfield pfield-wide" data-field={label}>
        <span class="plabel">{label}</span>
        {help && <small class="muted">{help}</small>}
        {!readOnly && (
          <button type="button" class="btn btn-small" onClick={() => onChange({ text: "", match: "contains" })}>
            + {label}
          </button>
        )}
        <IssueLines issues={issues} />
      </div>
    );
  }

  const set = (k: string, v: unknown) => {
    const next: Obj = { ...sel };
    if (v === undefined || v === "") delete next[k];
    else next[k] = v;
    onChange(next);
  };
  const worst = issues.some((i) => i.severity === "error") ? " selector-error" : "";

  return (
    <fieldset class={`selector${worst}`} data-testid="selector" aria-describedby={own.length ? `${id}-own` : undefined}>
      <legend>
        🎯 {label}
        {required && (
          <span class="req" title="required">
            *
          </span>
        )}
      </legend>
      {help && <small class="muted">{help}</small>}
      <IssueLines issues={own} id={`${id}-own`} />
      <div class="selector-row">
        <Cell id={`${id}-text`} label="Text" issues={at("text")} grow>
          <input
            {...aria(`${id}-text`, at("text"))}
            value={typeof sel.text === "string" ? sel.text : sel.text === undefined ? "" : JSON.stringify(sel.text)}
            readOnly={readOnly}
            placeholder="the control's name or value"
            onInput={(e) => set("text", e.currentTarget.value)}
            data-testid="selector-text"
          />
        </Cell>
        <Cell id={`${id}-type`} label="Type" issues={at("type")}>
          <input
            {...aria(`${id}-type`, at("type"))}
            list={CONTROL_TYPES_LIST}
            size={11}
            value={typeof sel.type === "string" ? sel.type : ""}
            readOnly={readOnly}
            placeholder="any"
            onInput={(e) => set("type", e.currentTarget.value.trim())}
            data-testid="selector-type"
          />
        </Cell>
        <Cell id={`${id}-match`} label="Match" issues={at("match")}>
          <select
            {...aria(`${id}-match`, at("match"))}
            value={typeof sel.match === "string" ? sel.match : "contains"}
            disabled={readOnly}
            onChange={(e) => set("match", e.currentTarget.value)}
            data-testid="selector-match"
          >
            {MATCH_MODES.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Cell>
        <Cell id={`${id}-index`} label="Index" issues={at("index")}>
          <input
            {...aria(`${id}-index`, at("index"))}
            class="num"
            inputMode="numeric"
            size={4}
            value={sel.index === undefined || sel.index === null ? "" : String(sel.index)}
            readOnly={readOnly}
            placeholder="0"
            onInput={(e) => set("index", parseNumber(e.currentTarget.value, true))}
          />
        </Cell>
      </div>
      {sel.within !== undefined && sel.within !== null ? (
        <div class="within">
          <SelectorFields
            label="Within"
            help="Only controls inside the one this picks."
            value={sel.within}
            onChange={(v) => set("within", v)}
            issues={relative(issues, "within")}
            required
            depth={depth + 1}
          />
          {!readOnly && (
            <button type="button" class="btn btn-ghost btn-small" onClick={() => set("within", undefined)}>
              Remove “within”
            </button>
          )}
        </div>
      ) : null}
      {!readOnly && (
        <div class="selector-tools">
          {(sel.within === undefined || sel.within === null) && depth < 7 && (
            <button type="button" class="btn btn-ghost btn-small" onClick={() => set("within", { type: "", match: "contains" })}>
              + Within…
            </button>
          )}
          {ctx.device && (
            <button
              type="button"
              class="btn btn-small"
              disabled={!ctx.deviceReady}
              title={ctx.deviceReady ? `List the controls of a window on ${ctx.device}` : ctx.deviceNote}
              onClick={() => setPicking(true)}
              data-testid="pick-from-device"
            >
              Pick from {ctx.device}…
            </button>
          )}
          {!required && (
            <button type="button" class="btn btn-ghost btn-small" onClick={() => onChange(undefined)}>
              Remove {label.toLowerCase()}
            </button>
          )}
        </div>
      )}
      {picking && ctx.device && (
        <PickFromDevice
          device={ctx.device}
          selector={sel}
          onClose={() => setPicking(false)}
          onPick={(s) => {
            setPicking(false);
            onChange(s);
          }}
        />
      )}
    </fieldset>
  );
}
