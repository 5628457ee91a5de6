// The step editor's table of step types (web/src/components/steps/spec.ts) against the JSON Schema
// generated from the Rust types (docs/task.schema.json): every type, every parameter, the required
// ones and the choices, so a type or parameter added to the language cannot be missing from the
// editor, nor the editor offer one the language does not have. No browser needed.
import { expect, test } from "@playwright/test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { COMMON_FIELDS, RETRY_FIELDS, STEP_TYPES, type FieldSpec } from "../src/components/steps/spec";

const here = dirname(fileURLToPath(import.meta.url));
type Schema = Record<string, unknown> & {
  $ref?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  oneOf?: Schema[];
  const?: string;
};
const schema = JSON.parse(readFileSync(join(here, "../../docs/task.schema.json"), "utf8")) as {
  $defs: Record<string, Schema>;
};
const defs = schema.$defs;

function deref(s: Schema): Schema {
  return s.$ref ? defs[s.$ref.replace("#/$defs/", "")] : s;
}

/** The schema's step types: type → {params: every property, required, variants (oneOf keys)}. */
function schemaTypes() {
  const out = new Map<string, { params: Set<string>; required: Set<string>; variants: string[][] }>();
  for (const alt of defs.Step.oneOf ?? []) {
    const type = alt.properties?.type?.const as string;
    const body = alt.$ref ? deref(alt) : { properties: {} };
    const params = new Set(Object.keys(body.properties ?? {}));
    const required = new Set(body.required ?? []);
    const variants: string[][] = [];
    for (const v of body.oneOf ?? []) {
      const keys = Object.keys(v.properties ?? {});
      keys.forEach((k) => params.add(k));
      variants.push(keys);
    }
    out.set(type, { params, required, variants });
  }
  return out;
}

/** The choices a schema property allows (an enum of consts). */
function choices(prop: Schema | undefined): string[] | null {
  if (!prop) return null;
  const d = deref(prop);
  if (!d.oneOf || !d.oneOf.every((o) => typeof o.const === "string")) return null;
  return d.oneOf.map((o) => o.const as string);
}

test("the editor knows every step type of the schema, with exactly its parameters", () => {
  const fromSchema = schemaTypes();
  expect(STEP_TYPES.map((t) => t.type).sort()).toEqual([...fromSchema.keys()].sort());
  expect(STEP_TYPES).toHaveLength(23);
  for (const spec of STEP_TYPES) {
    const want = fromSchema.get(spec.type)!;
    const fields: FieldSpec[] = [...spec.fields, ...(spec.variants?.options.flatMap((o) => o.fields) ?? [])];
    const keys = new Set(fields.map((f) => f.key));
    expect([...keys].sort(), spec.type).toEqual([...want.params].sort());
    for (const f of spec.fields) expect(!!f.required, `${spec.type}.${f.key} required`).toBe(want.required.has(f.key));
    const variantKeys = spec.variants?.options.map((o) => o.fields.map((f) => f.key).sort()) ?? [];
    expect(variantKeys, `${spec.type} alternatives`).toEqual(want.variants.map((v) => v.sort()));
    expect(spec.template().type, `${spec.type} template`).toBe(spec.type);
  }
  expect(STEP_TYPES.filter((t) => t.library).map((t) => t.type)).toEqual([
    "open_app", "stop_app", "screen_on", "screen_off", "key_event", "swipe", "swipe_until", "click",
    "long_click", "wait_el", "input_text", "clipboard", "wait", "loop", "group", "if_el",
  ]);
});

test("the editor offers retry on exactly the types whose schema branch takes it, with its fields", () => {
  const branches = new Map((defs.Step.oneOf ?? []).map((alt) => [alt.properties?.type?.const as string, alt]));
  for (const spec of STEP_TYPES) {
    const retry = branches.get(spec.type)?.properties?.retry;
    expect(!!spec.retry, `${spec.type} retry`).toBe(!!retry);
  }
  const retry = branches.get("click")!.properties!.retry!;
  expect(RETRY_FIELDS.map((f) => f.key).sort()).toEqual(Object.keys(retry.properties ?? {}).sort());
  for (const f of RETRY_FIELDS) {
    const p = retry.properties![f.key] as { minimum?: number; maximum?: number };
    expect([f.min, f.max], f.key).toEqual([p.minimum, p.maximum]);
    expect(!!f.required, `${f.key} required`).toBe((retry.required ?? []).includes(f.key));
  }
});

test("the editor's choices are the schema's", () => {
  const byType = new Map((defs.Step.oneOf ?? []).map((alt) => [alt.properties?.type?.const as string, alt.$ref ? deref(alt) : {}]));
  for (const spec of STEP_TYPES) {
    const body = byType.get(spec.type) as Schema;
    for (const f of spec.fields.filter((x) => x.kind === "choice")) {
      expect(f.choices, `${spec.type}.${f.key}`).toEqual(choices(body.properties?.[f.key]));
    }
  }
  expect(COMMON_FIELDS.find((f) => f.key === "on_error")?.choices).toEqual(choices(defs.OnError));
  const match = choices(defs.Selector.properties?.match);
  expect(match?.sort()).toEqual(["contains", "exact", "fuzzy", "regex"]);
});
