// The shapes of docs/console-api.md and DESIGN.md "Events".

/** Token usage, summed over model calls. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  calls: number;
}

/** How a run ended (or `running`). */
export type RunStatus = "running" | "completed" | "failed" | "stopped" | "timeout" | "max_steps";

/** One tool step as stored on an assistant message. */
export interface StoredStep {
  call_id: string;
  tool: string;
  args: unknown;
  image_ids?: string[];
  duration_ms?: number;
  status?: string;
  effect?: string | null;
}

/** A stored message of a conversation. */
export interface Message {
  role: "user" | "assistant";
  content: string;
  created_at?: string;
  run_id?: string;
  status?: RunStatus;
  usage?: Usage;
  reasoning?: string;
  steps?: StoredStep[];
}

/** A conversation as listed. */
export interface Conversation {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  message_count: number;
  usage?: Usage;
}

/** A conversation with its messages. */
export interface ConversationDetail extends Conversation {
  messages: Message[];
}

/** A question waiting for a person. */
export interface PendingConfirm {
  call_id: string;
  tool: string;
  args: unknown;
  reason: string;
}

/** The state of one run. */
export interface RunInfo {
  run_id: string;
  conversation: string;
  device: string;
  prompt: string;
  status: RunStatus;
  started_at: string;
  finished_at?: string | null;
  last_seq: number;
  usage?: Usage;
  pending_confirm?: PendingConfirm | null;
}

/** A device the server can operate. */
export interface Device {
  id: string;
  profile: string;
  busy: boolean;
  kind: "own" | "remote";
  connected_since?: string | null;
  last_heartbeat?: string | null;
  system_info?: unknown;
  tools?: unknown;
  has_screen: boolean;
}

/** The agent settings. */
export interface Settings {
  api_base: string;
  model: string;
  api_key_set: boolean;
  api_key_masked: string;
  default_device: string;
  max_steps: number;
}

/** The Result envelope inside a `step` event. */
export interface StepResult {
  status?: "success" | "failure" | "skipped";
  result?: unknown;
  error?: string | null;
}

/** One event of a run's stream. */
export type AgentEvent =
  | { seq: number; type: "delta"; text: string; kind: "content" | "reasoning" }
  | { seq: number; type: "step_start"; call_id: string; tool: string; args: unknown }
  | {
      seq: number;
      type: "step";
      call_id: string;
      tool: string;
      args: unknown;
      result: StepResult | null;
      image_ids?: string[];
      duration_ms: number;
      effect?: string | null;
    }
  | ({ seq: number; type: "usage" } & Usage)
  | { seq: number; type: "confirm"; call_id: string; tool: string; args: unknown; reason: string }
  | { seq: number; type: "confirmed"; call_id: string; approve: boolean }
  | { seq: number; type: "error"; message: string }
  | { seq: number; type: "done"; answer: string; usage: Usage; status: Exclude<RunStatus, "running"> };

/** The event type names of the stream. */
export const EVENT_TYPES = [
  "delta",
  "step_start",
  "step",
  "usage",
  "confirm",
  "confirmed",
  "error",
  "done",
] as const;
