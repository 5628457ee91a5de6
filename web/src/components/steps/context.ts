// What every part of one step editor shares: the problems to show, read-only and library mode,
// the device "Pick from device" asks, the requests to open or reveal steps, and a run's results.
import { createContext } from "preact";
import type { Issues } from "./issues";
import type { TaskStepView } from "../../task-run-state";
import { NO_ISSUES } from "./issues";

/** A request to open steps: all of them (`open`), or the one at `path` and its parents. */
export interface OpenRequest {
  /** Grows with every request, so the same one can be made twice. */
  n: number;
  /** Open (true) or close (false) every step; absent with `path`. */
  all?: boolean;
  /** Reveal this step: open it and its parents, scroll to it and focus it. */
  path?: string;
}

/** The shared state of one editor. */
export interface EditorState {
  issues: Issues;
  readOnly: boolean;
  library: boolean;
  /** Where "Pick from device" looks; none: no picker. */
  device?: string;
  /** Whether that device can be asked now (connected and not busy). */
  deviceReady: boolean;
  /** Why it cannot, when it cannot. */
  deviceNote: string;
  open: OpenRequest;
  /** Whether steps start open (short lists) or as one-line summaries. */
  startOpen: boolean;
  /** Keys of steps added in this editor: they start open. */
  fresh: Set<string>;
  /** A run's result of each step, by path (designer mode's "try it"), shown on its card. */
  results?: ReadonlyMap<string, TaskStepView>;
  /** Runs the task up to and including the step at `path` ("until"), or that step alone
   * ("only"), on its device; none: the cards offer no run. */
  runStep?: (path: string, how: "until" | "only") => void;
  /** Why a run cannot start now (a run under way, problems in the file); empty when it can. */
  runNote?: string;
}

/** The editor's shared state. */
export const EditorContext = createContext<EditorState>({
  issues: NO_ISSUES,
  readOnly: false,
  library: false,
  deviceReady: false,
  deviceNote: "",
  open: { n: 0 },
  startOpen: true,
  fresh: new Set(),
});
