// "Pick from device": lists a window's controls through the device's own tools (the exec API:
// get_desktop_app_info, select_application_window, then find_controls or the JSON listing) and
// turns the control a person chooses into a selector — checked with find_controls, so the index
// it gets picks that very control.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type ExecBatch } from "../../api";
import { useSubmit } from "../../hooks/useSubmit";
import { Modal } from "../FormFields";
import type { CommandResult } from "../../types";
import { CONTROL_TYPES_LIST, MATCH_MODES } from "./spec";

/** A window (a browser tab) as get_desktop_app_info lists it. */
interface Win {
  id: string;
  name: string;
  type?: string;
  app?: string;
}

/** A control as the JSON listing and find_controls give it. */
interface Control {
  id: string;
  type: string;
  name: string;
  value?: string | null;
  score?: number;
  states?: string[];
}

type Obj = Record<string, unknown>;

/** Props of the dialog. */
export interface PickProps {
  device: string;
  /** The selector so far: its text, type and mode fill the search; its `within` narrows it. */
  selector: Obj;
  onPick: (selector: Obj) => void;
  onClose: () => void;
}

/** A Result's value: structured content, or JSON text. */
function valueOf(r: CommandResult | undefined): unknown {
  if (!r) throw new Error("the device answered nothing");
  if (r.status !== "success") throw new Error(r.error ?? `${r.status}`);
  if (typeof r.result === "string") {
    try {
      return JSON.parse(r.result);
    } catch {
      return r.result;
    }
  }
  return r.result;
}

const call = (tool_name: string, tool_type: "data_collection" | "action", parameters: Obj) => ({
  tool_name,
  tool_type,
  parameters,
});

/** One batch on the device; its only Result's value. */
async function one(device: string, batch: ExecBatch): Promise<unknown> {
  const [results] = await api.exec(device, [batch]);
  return valueOf(results?.[0]);
}

/** The search selector: text, type and mode from the form, `within` kept from the step. */
function searchSelector(text: string, type: string, match: string, within: unknown): Obj | null {
  if (!text.trim() && !type.trim()) return null;
  const s: Obj = { match };
  if (text.trim()) s.text = text;
  if (type.trim()) s.type = type.trim();
  if (within && typeof within === "object") s.within = within;
  return s;
}

/** The dialog. */
export function PickFromDevice({ device, selector, onPick, onClose }: PickProps) {
  const [windows, setWindows] = useState<Win[] | null>(null);
  const [win, setWin] = useState("");
  const [text, setText] = useState(typeof selector.text === "string" ? selector.text : "");
  const [type, setType] = useState(typeof selector.type === "string" ? selector.type : "");
  // Searching is looser than the step: an exact selector is searched with `contains`.
  const [match, setMatch] = useState(typeof selector.match === "string" && selector.match !== "exact" ? selector.match : "contains");
  const [controls, setControls] = useState<Control[] | null>(null);
  const [note, setNote] = useState("");
  const { error, busy, run: work } = useSubmit();
  // The AppAgent Computer of the selected window.
  const app = useRef<{ root: string; process: string } | null>(null);

  useEffect(() => {
    void loadWindows();
  }, []);

  const loadWindows = () =>
    work(async () => {
      const v = (await one(device, { commands: [call("get_desktop_app_info", "data_collection", {})] })) as
        | Win[]
        | { windows?: Win[] };
      const list = (Array.isArray(v) ? v : (v.windows ?? [])).map((w) => ({ ...w, id: String(w.id) }));
      setWindows(list);
      // The newest window with content (a blank tab is rarely the one meant).
      const likely = [...list].reverse().find((w) => w.app !== "about") ?? list[0];
      setWin((cur) => (list.some((w) => w.id === cur) ? cur : (likely?.id ?? "")));
      app.current = null;
    });

  /** Selects the chosen window (once) and remembers its Computer. */
  const selectWindow = async () => {
    const w = windows?.find((x) => x.id === win);
    if (!w) throw new Error(`No window is open on ${device}: start the application first (run the task up to its open_app step).`);
    if (app.current) return app.current;
    const v = (await one(device, {
      commands: [call("select_application_window", "action", { id: w.id, name: w.name })],
    })) as { root_name?: string; window_info?: { name?: string } };
    app.current = { root: v.root_name ?? w.app ?? "", process: v.window_info?.name ?? w.name };
    return app.current;
  };

  const onApp = async (tool: string, parameters: Obj) => {
    const a = await selectWindow();
    return one(device, { agent: "AppAgent", root: a.root, process: a.process, commands: [call(tool, "data_collection", parameters)] });
  };

  const find = () =>
    work(async () => {
      const s = searchSelector(text, type, match, selector.within);
      if (s) {
        const v = (await onApp("find_controls", { selector: s, limit: 50, format: "json" })) as {
          matches?: Control[];
          total?: number;
          note?: string | null;
        };
        setControls(v.matches ?? []);
        setNote(`${v.total ?? 0} matched${v.note ? ` — ${v.note}` : ""}`);
      } else {
        const v = (await onApp("get_app_window_controls_info", {
          format: "json",
          only_interactive: true,
          max_controls: 300,
        })) as { controls?: Control[]; counts?: { interactive?: number } };
        setControls(v.controls ?? []);
        setNote(`${v.controls?.length ?? 0} interactive controls`);
      }
    });

  /** The selector that picks `c`: its text and type, exactly, with the index among equal matches. */
  const use = (c: Control) =>
    work(async () => {
      const label = c.name || c.value || "";
      const s: Obj = label ? { text: label, type: c.type, match: "exact" } : { type: c.type, match: "exact" };
      if (selector.within && typeof selector.within === "object") s.within = selector.within;
      const v = (await onApp("find_controls", { selector: s, limit: 100, format: "json" })) as { matches?: Control[] };
      const at = (v.matches ?? []).findIndex((m) => String(m.id) === String(c.id));
      if (at < 0) throw new Error(`Control ${c.id} is gone from the window; search again.`);
      if (at > 0) s.index = at;
      onPick(s);
    });

  return (
    <Modal labelledBy="pick-title" testId="picker" wide onClose={onClose}>
      <div class="form">
        <h2 id="pick-title">Pick a control on {device}</h2>
        <div class="pick-row">
          <label class="grow">
            Window
            <select value={win} onChange={(e) => { setWin(e.currentTarget.value); app.current = null; setControls(null); }} data-testid="picker-window" disabled={busy && windows === null}>
              {windows === null && <option value="">Loading…</option>}
              {windows?.length === 0 && <option value="">no windows open</option>}
              {windows?.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name} {w.app ? `(${w.app})` : ""}
                </option>
              ))}
            </select>
          </label>
          <button type="button" class="btn btn-small" onClick={() => void loadWindows()} disabled={busy}>
            ↻ Windows
          </button>
        </div>
        {windows?.length === 0 && (
          <p class="muted small" data-testid="picker-no-windows">
            No window is open on {device}. Open the application first — run the task (its open_app step opens it) — then ↻ Windows.
          </p>
        )}
        <form
          class="pick-row"
          onSubmit={(e) => {
            e.preventDefault();
            void find();
          }}
        >
          <label class="grow">
            Text
            <input value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder="empty: list every interactive control" data-testid="picker-text" />
          </label>
          <label>
            Type
            <input value={type} list={CONTROL_TYPES_LIST} onInput={(e) => setType(e.currentTarget.value)} size={10} />
          </label>
          <label>
            Match
            <select value={match} onChange={(e) => setMatch(e.currentTarget.value)}>
              {MATCH_MODES.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </label>
          <button class="btn btn-primary" type="submit" disabled={busy || !win} data-testid="picker-find">
            {busy ? "Asking…" : "Find"}
          </button>
        </form>
        {error && (
          <div class="banner banner-error" role="alert" data-testid="picker-error">
            {error}
          </div>
        )}
        {controls && (
          <div class="pick-results">
            <p class="muted small" aria-live="polite">
              {note}
            </p>
            <table class="table table-cards">
              <thead>
                <tr>
                  <th>id</th>
                  <th>type</th>
                  <th>name</th>
                  <th>value</th>
                  <th>score</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {controls.map((c) => (
                  <tr key={c.id} data-testid="picker-control">
                    <td class="mono card-lead">{c.id}</td>
                    <td class="card-lead">{c.type}</td>
                    <td class="card-title">{c.name}</td>
                    <td class="muted" data-label="value">{c.value ?? ""}</td>
                    <td data-label="score">{c.score ?? ""}</td>
                    <td class="row-actions">
                      <button type="button" class="btn btn-small" disabled={busy} onClick={() => void use(c)} aria-label={`Use ${c.type} ${c.name || c.id}`}>
                        Use
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <div class="dialog-buttons">
          <button type="button" class="btn" onClick={onClose}>
            Cancel
          </button>
        </div>
      </div>
    </Modal>
  );
}
