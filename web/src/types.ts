// Generated from the Rust types by `crates/server/src/console/views.rs` (the
// typescript_types_are_current test): do not edit. DEFT_UPDATE_TS=1 cargo test -p
// deft-server typescript_types rewrites it.

export type Usage = { 
/**
 * Prompt tokens.
 */
prompt_tokens: number, 
/**
 * Completion tokens.
 */
completion_tokens: number, 
/**
 * Both.
 */
total_tokens: number, 
/**
 * Number of model calls.
 */
calls: number, };

export type DoneStatus = "completed" | "failed" | "stopped" | "timeout" | "max_steps";

/** A run's state: running, or how it ended. */
export type RunStatus = "running" | DoneStatus;

export type ResultStatus = "success" | "failure" | "skipped";

export type StepSummary = { 
/**
 * The call's id.
 */
call_id: string, 
/**
 * Tool name.
 */
tool: string, 
/**
 * Its arguments.
 */
args: unknown, 
/**
 * Ids of the images the call returned.
 */
image_ids: Array<string>, 
/**
 * Wall time of the call.
 */
duration_ms: number, 
/**
 * The Result's status (`None` when it had none).
 */
status: ResultStatus | null, 
/**
 * `changed` / `no_change` where the backend could tell.
 */
effect: string | null, };

export type Message = { 
/**
 * `user` or `assistant`.
 */
role: "user" | "assistant", 
/**
 * The text (Markdown for answers).
 */
content: string, 
/**
 * Written (ISO-8601 UTC).
 */
created_at: string, 
/**
 * The run that produced (or answered) it.
 */
run_id?: string, 
/**
 * How that run ended (assistant messages).
 */
status?: DoneStatus, 
/**
 * The run's token usage (assistant messages).
 */
usage?: Usage, 
/**
 * The model's reasoning, capped (assistant messages).
 */
reasoning?: string, 
/**
 * The run's tool steps (assistant messages only).
 */
steps?: Array<StepSummary>, };

export type Conversation = { 
/**
 * Conversation id.
 */
id: string, 
/**
 * Title (the first prompt, cut).
 */
title: string, 
/**
 * Created (ISO-8601 UTC).
 */
created_at: string, 
/**
 * Last message (ISO-8601 UTC).
 */
updated_at: string, 
/**
 * Messages kept.
 */
message_count: number, 
/**
 * Token usage of all its runs.
 */
usage: Usage, };

export type ConversationDetail = { 
/**
 * Oldest first.
 */
messages: Array<Message>, 
/**
 * Conversation id.
 */
id: string, 
/**
 * Title (the first prompt, cut).
 */
title: string, 
/**
 * Created (ISO-8601 UTC).
 */
created_at: string, 
/**
 * Last message (ISO-8601 UTC).
 */
updated_at: string, 
/**
 * Messages kept.
 */
message_count: number, 
/**
 * Token usage of all its runs.
 */
usage: Usage, };

export type PendingConfirm = { 
/**
 * The tool call's id.
 */
call_id: string, 
/**
 * The tool.
 */
tool: string, 
/**
 * Its arguments.
 */
args: unknown, 
/**
 * Why it needs approval.
 */
reason: string, };

export type RunInfo = { 
/**
 * Run id.
 */
run_id: string, 
/**
 * Its conversation.
 */
conversation: string, 
/**
 * The device it operates.
 */
device: string, 
/**
 * What was asked.
 */
prompt: string, 
/**
 * Running, or how it ended.
 */
status: RunStatus, 
/**
 * The final answer (finished runs).
 */
answer?: string, 
/**
 * Started (ISO-8601 UTC).
 */
started_at: string, 
/**
 * Ended (ISO-8601 UTC), `null` while running.
 */
finished_at: string | null, 
/**
 * The seq of its newest event (resume the stream after it).
 */
last_seq: number, 
/**
 * Token usage so far.
 */
usage: Usage, 
/**
 * The question waiting for a person, if any.
 */
pending_confirm: PendingConfirm | null, };

export type CurrentRun = { 
/**
 * The run in the slot.
 */
run: RunInfo | null, };

export type RunStarted = { 
/**
 * Run id.
 */
run_id: string, 
/**
 * Its conversation (new when none was given).
 */
conversation: string, 
/**
 * The device it operates.
 */
device: string, };

export type DeviceKind = "server" | "remote";

export type Device = { 
/**
 * Device id.
 */
id: string, 
/**
 * Routing-table profile.
 */
profile: string, 
/**
 * A run, task or exec batch is executing on it.
 */
busy: boolean, 
/**
 * This server's own device, or a connected `deft client`.
 */
kind: DeviceKind, 
/**
 * When it registered (ISO-8601 UTC); remote devices only.
 */
connected_since: string | null, 
/**
 * Its last message (ISO-8601 UTC); remote devices only.
 */
last_heartbeat: string | null, 
/**
 * What it reported at registration (platform, OS, CPU, memory, hostname, screen…).
 */
system_info: unknown, 
/**
 * The tool servers it offers.
 */
tools: Array<string>, 
/**
 * Whether the device has a screen the live view can show (not the `shell` profile).
 */
has_screen: boolean, };

export type Settings = { 
/**
 * Base URL.
 */
api_base: string, 
/**
 * Model name.
 */
model: string, 
/**
 * Whether an API key is set.
 */
api_key_set: boolean, 
/**
 * The key, masked (`sk-…9f3a`).
 */
api_key_masked: string, 
/**
 * Default device.
 */
default_device: string, 
/**
 * Step limit.
 */
max_steps: number, };

export type CommandResult = { 
/**
 * Echoes the Command's `call_id`.
 */
call_id: string, 
/**
 * success, failure or skipped.
 */
status: ResultStatus, 
/**
 * The tool's structured content (or its text) on success; `null` otherwise.
 */
result: unknown, 
/**
 * What went wrong, written for the model.
 */
error: string | null, 
/**
 * The namespace of the tool server that answered.
 */
namespace: string | null, 
/**
 * Images the tool returned, as `data:<mime>;base64,…` URIs.
 */
images: Array<string>, };

export type DeltaKind = "content" | "reasoning";

export type ToolStep = { 
/**
 * The call's id.
 */
call_id: string, 
/**
 * Tool name.
 */
tool: string, 
/**
 * Its arguments.
 */
args: unknown, 
/**
 * The Result envelope, images replaced by ids.
 */
result: CommandResult, 
/**
 * Ids of the images the call returned.
 */
image_ids: Array<string>, 
/**
 * Wall time of the call.
 */
duration_ms: number, 
/**
 * `changed` / `no_change` where the backend can tell.
 */
effect?: string | null, };

export type StepStatus = "ok" | "failed" | "skipped";

export type MatchedControl = { 
/**
 * Its id in the device session.
 */
id: string, 
/**
 * Its name when it matched.
 */
name: string, 
/**
 * Its listed type.
 */
type: string, 
/**
 * The match score, 1–100.
 */
score: number, };

export type TaskStepStart = { 
/**
 * Where the step is in the task: `steps[3]`, `steps[3].then[0]`; a loop's round is
 * `steps[2].steps[0]#4` (round 4, from 1).
 */
path: string, 
/**
 * The step type (`click`, `wait_el`, …).
 */
step_type: string, 
/**
 * The step's `note`, if it has one.
 */
note?: string | null, };

export type TaskStepResult = { 
/**
 * As in [`TaskStepStart::path`].
 */
path: string, 
/**
 * The step type.
 */
step_type: string, 
/**
 * How it ended.
 */
status: StepStatus, 
/**
 * Wall time, tool calls included.
 */
duration_ms: number, 
/**
 * The control its selector picked.
 */
matched?: MatchedControl | null, 
/**
 * The selector as written when it matched nothing and the fuzzy retry found `matched`
 * instead: what drifted on the device (a renamed button).
 */
healed_from?: string | null, 
/**
 * Why it failed or was skipped.
 */
error?: string | null, 
/**
 * What the step has to say when it worked: a `notify` text, a `mark_done` reason, the
 * variable a clipboard read filled.
 */
message?: string | null, 
/**
 * Ids of images the step kept (a screenshot at a failure).
 */
image_ids?: Array<string>, };

export type EventKind = { "type": "delta", 
/**
 * The new text.
 */
text: string, 
/**
 * content or reasoning.
 */
kind: DeltaKind, } | { "type": "step_start", 
/**
 * The call's id.
 */
call_id: string, 
/**
 * Tool name.
 */
tool: string, 
/**
 * Its arguments.
 */
args: unknown, } | { "type": "step" } & ToolStep | { "type": "usage" } & Usage | { "type": "confirm", 
/**
 * The call's id.
 */
call_id: string, 
/**
 * Tool name.
 */
tool: string, 
/**
 * Its arguments.
 */
args: unknown, 
/**
 * Why it needs approval.
 */
reason: string, } | { "type": "confirmed", 
/**
 * The call's id.
 */
call_id: string, 
/**
 * Whether it was approved.
 */
approve: boolean, } | { "type": "task_step_start" } & TaskStepStart | { "type": "task_step" } & TaskStepResult | { "type": "error", 
/**
 * What happened.
 */
message: string, } | { "type": "done", 
/**
 * The final answer (may be empty).
 */
answer: string, 
/**
 * Total usage.
 */
usage: Usage, 
/**
 * How it ended.
 */
status: DoneStatus, };

export type AgentEvent = { 
/**
 * Per-run sequence number, starting at 1.
 */
seq: number, } & ({ "type": "delta", 
/**
 * The new text.
 */
text: string, 
/**
 * content or reasoning.
 */
kind: DeltaKind, } | { "type": "step_start", 
/**
 * The call's id.
 */
call_id: string, 
/**
 * Tool name.
 */
tool: string, 
/**
 * Its arguments.
 */
args: unknown, } | { "type": "step" } & ToolStep | { "type": "usage" } & Usage | { "type": "confirm", 
/**
 * The call's id.
 */
call_id: string, 
/**
 * Tool name.
 */
tool: string, 
/**
 * Its arguments.
 */
args: unknown, 
/**
 * Why it needs approval.
 */
reason: string, } | { "type": "confirmed", 
/**
 * The call's id.
 */
call_id: string, 
/**
 * Whether it was approved.
 */
approve: boolean, } | { "type": "task_step_start" } & TaskStepStart | { "type": "task_step" } & TaskStepResult | { "type": "error", 
/**
 * What happened.
 */
message: string, } | { "type": "done", 
/**
 * The final answer (may be empty).
 */
answer: string, 
/**
 * Total usage.
 */
usage: Usage, 
/**
 * How it ended.
 */
status: DoneStatus, });

/** The event type names of the stream. */
export const EVENT_TYPES = [
  "delta",
  "step_start",
  "step",
  "usage",
  "confirm",
  "confirmed",
  "task_step_start",
  "task_step",
  "error",
  "done",
] as const;
