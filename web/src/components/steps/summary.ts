// One line that says what a step does (a collapsed step card, the run history): the short form
// of a selector is the server's own (`button "Save" (exact) #1 within dialog "Export"`).

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A selector in words: `button "Save" (exact) #1 within dialog "Export"`. */
export function selectorText(sel: unknown): string {
  if (!isObj(sel)) return "";
  const parts: string[] = [];
  if (typeof sel.type === "string" && sel.type) parts.push(sel.type);
  if (typeof sel.text === "string" && sel.text) parts.push(JSON.stringify(sel.text));
  if (typeof sel.match === "string" && sel.match !== "contains") parts.push(`(${sel.match})`);
  if (typeof sel.index === "number" && sel.index > 0) parts.push(`#${sel.index}`);
  let s = parts.join(" ");
  if (isObj(sel.within)) s += ` within ${selectorText(sel.within)}`;
  return s;
}

function n(v: unknown): string {
  return typeof v === "number" || typeof v === "string" ? String(v) : "?";
}

function q(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : "";
}

function count(v: unknown, one: string): string {
  const k = Array.isArray(v) ? v.length : 0;
  return `${k} ${one}${k === 1 ? "" : "s"}`;
}

/** What a step does, in one line (without its type), with its retries when it has them. */
export function stepSummary(step: unknown): string {
  if (!isObj(step)) return "not a step object";
  const what = ownSummary(step);
  const times = isObj(step.retry) ? step.retry.times : undefined;
  return times === undefined ? what : `${what} (retry ×${n(times)})`;
}

function ownSummary(step: Obj): string {
  const sel = selectorText(step.selector);
  switch (step.type) {
    case "open_app":
      return step.url !== undefined ? `${q(step.url)}${step.new_tab ? " in a new tab" : ""}` : q(step.app);
    case "stop_app":
      return q(step.app);
    case "key_event":
      return `${q(step.keys)}${sel ? ` into ${sel}` : ""}`;
    case "swipe":
      return `${n(step.direction)}${step.area ? ` in ${selectorText(step.area)}` : ""}`;
    case "swipe_until":
      return `${n(step.direction)} until ${sel}`;
    case "click":
      return `${sel}${step.double ? " (double)" : ""}${step.button && step.button !== "left" ? ` (${n(step.button)})` : ""}`;
    case "long_click":
      return `${sel}${step.duration_s !== undefined ? ` for ${n(step.duration_s)} s` : ""}`;
    case "wait_el":
      return `${step.gone ? "until gone: " : ""}${sel}`;
    case "input_text":
      return `${q(step.text)} into ${sel}${step.mode === "append" ? " (append)" : ""}`;
    case "clipboard":
      return step.read_into !== undefined ? `read into {{${n(step.read_into)}}}` : `set ${q(step.set)}`;
    case "wait":
      return `${n(step.seconds)} s`;
    case "loop": {
      const body = count(step.steps, "step");
      if (step.while !== undefined) return `while ${selectorText(step.while)}: ${body}`;
      if (step.until !== undefined) return `until ${selectorText(step.until)}: ${body}`;
      return `${n(step.times)} times: ${body}`;
    }
    case "group":
      return `${q(step.name)}: ${count(step.steps, "step")}`;
    case "if_el":
      return `${step.gone ? "gone: " : ""}${sel} → ${count(step.then, "step")}${
        Array.isArray(step.else) && step.else.length ? `, else ${count(step.else, "step")}` : ""
      }`;
    case "for_each": {
      const body = count(step.steps, "step");
      const as = typeof step.as === "string" && step.as ? step.as : "item";
      if (step.csv !== undefined) return `${as} of the CSV ${q(step.csv)}: ${body}`;
      if (step.variable !== undefined) return `${as} of {{${n(step.variable)}}}: ${body}`;
      return `${as} of ${count(step.items, "item")}: ${body}`;
    }
    case "click_xy":
      return `(${n(step.x)}, ${n(step.y)})`;
    case "gesture":
      return count(step.points, "point");
    case "keep_screen":
      return step.on ? "on" : "off";
    case "notify":
      return `${step.level && step.level !== "info" ? `${n(step.level)}: ` : ""}${q(step.message)}`;
    case "stop_self":
    case "mark_done":
      return step.message ? q(step.message) : "";
    default:
      return "";
  }
}
