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

export type RunMode = "chat" | "designer";

export type DraftIssue = { 
/**
 * Where, as the validator writes paths (`""` for the task as a whole).
 */
path: string, 
/**
 * What is suspect and what to check.
 */
message: string, };

export type OutputError = { 
/**
 * The instance path (`/items/0/price`), `""` for the answer as a whole.
 */
path: string, 
/**
 * What is wrong there.
 */
message: string, };

export type TypedResult = { 
/**
 * Whether the answer is JSON valid against the schema.
 */
valid: boolean, 
/**
 * The parsed answer (only when valid).
 */
value?: unknown, 
/**
 * Why it is not valid (only when not valid; at most [`TypedResult::MAX_ERRORS`]).
 */
errors?: Array<OutputError>, 
/**
 * The answer's text as the model wrote it (only when not valid).
 */
raw?: string, 
/**
 * Whether a repair turn was asked for (the first answer was not valid).
 */
repaired: boolean, };

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
steps?: Array<StepSummary>, 
/**
 * What the memory did for the run: recalled into its prompt, saved, merged or dropped
 * after it (assistant messages only).
 */
memory?: Array<MemoryNote>, 
/**
 * The run's typed result, when it was asked for one (assistant messages).
 */
output?: TypedResult, };

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
 * A chat, or designer mode (the chat page shows "designer exploring" while one runs).
 */
mode: RunMode, 
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
pending_confirm: PendingConfirm | null, 
/**
 * What the memory did for the run so far (recalled, then after `done` saved, merged or
 * dropped).
 */
memory: Array<MemoryNote>, 
/**
 * Distilling the run after its `done` is still going on (its notes are not all in
 * `memory` yet).
 */
distilling: boolean, 
/**
 * A finished run with an output schema: its typed result, as its `done` carried it.
 */
output?: TypedResult, };

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

export type TaskDraft = { 
/**
 * The task file (valid when it was drafted).
 */
draft: unknown, 
/**
 * What is suspect in it, at its paths.
 */
warnings: Array<DraftIssue>, 
/**
 * What the person asked for.
 */
prompt: string, 
/**
 * When it was drafted (ISO-8601 UTC).
 */
created: string, 
/**
 * The designer run that drafted it (its events show the exploration).
 */
run_id: string, 
/**
 * The device it was explored on.
 */
device: string, };

export type DeviceKind = "server" | "remote" | "phone" | "fleet";

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
has_screen: boolean, 
/**
 * A phone's adb state (`device` when ready; `unauthorized`, `offline` …); none for other
 * devices, which are listed only while usable.
 */
state: string | null, 
/**
 * What the device is, for a person (`Pixel 7 · Android 14`).
 */
label: string | null, 
/**
 * What to do before it can be used (a phone not ready).
 */
note: string | null, 
/**
 * The server of the fleet that holds it, when another server does (runs started here go
 * there).
 */
server: string | null, };

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

export type Secret = { 
/**
 * Its name (`{"secret": "NAME"}` in a task's variables).
 */
name: string, 
/**
 * Who set it last: a username, or `api token`.
 */
set_by: string, 
/**
 * When it was set last (ISO-8601 UTC).
 */
updated_at: string, 
/**
 * The names of the tasks whose variables use it.
 */
used_by: Array<string>, };

export type SecretList = { 
/**
 * Every secret, by name.
 */
items: Array<Secret>, };

export type ApiTokenView = { 
/**
 * v4 UUID.
 */
id: string, 
/**
 * Unique name.
 */
name: string, 
/**
 * The value's first characters.
 */
prefix: string, 
/**
 * Scope names.
 */
scopes: Array<string>, 
/**
 * Who made it.
 */
created_by: string, 
/**
 * When (ISO-8601 UTC).
 */
created_at: string, 
/**
 * When it stops working, if ever.
 */
expires_at: string | null, 
/**
 * Its last call, if any.
 */
last_used_at: string | null, 
/**
 * When it was revoked, if it was.
 */
revoked_at: string | null, 
/**
 * `active`, `expired` or `revoked`.
 */
state: string, };

export type ApiTokenCallView = { 
/**
 * When (ISO-8601 UTC).
 */
at: string, 
/**
 * HTTP method.
 */
method: string, 
/**
 * Path, without the query.
 */
path: string, 
/**
 * The answer's status.
 */
status: number, };

export type Webhook = { 
/**
 * v4 UUID.
 */
id: string, 
/**
 * Unique name.
 */
name: string, 
/**
 * Where deliveries are POSTed.
 */
url: string, 
/**
 * The event kinds it receives.
 */
events: Array<string>, 
/**
 * Whether events are delivered to it.
 */
enabled: boolean, 
/**
 * `active`, `disabled` or `failing` (its last finished delivery failed every attempt).
 */
state: string, 
/**
 * When it was made (ISO-8601 UTC).
 */
created_at: string, 
/**
 * When it was last changed.
 */
updated_at: string, 
/**
 * Its newest delivery, if any.
 */
last_delivery: WebhookDelivery | null, };

export type WebhookDelivery = { 
/**
 * v4 UUID: the `Deft-Delivery` header, the same on every attempt.
 */
id: string, 
/**
 * The event kind.
 */
event: string, 
/**
 * The event's id (the payload's `id`; a redelivery repeats it).
 */
event_id: string, 
/**
 * `pending`, `succeeded` or `failed`.
 */
state: string, 
/**
 * Attempts so far.
 */
attempts: number, 
/**
 * The most attempts it gets.
 */
max_attempts: number, 
/**
 * When a pending delivery is tried next.
 */
next_attempt_at: string | null, 
/**
 * The last answer's HTTP status.
 */
response_code: number | null, 
/**
 * Why the last attempt failed.
 */
error: string | null, 
/**
 * The start of the last answer's body.
 */
response_excerpt: string | null, 
/**
 * How long the last attempt took, ms.
 */
duration_ms: number | null, 
/**
 * The JSON body POSTed.
 */
payload: unknown, 
/**
 * When it was queued.
 */
created_at: string, 
/**
 * When it last changed.
 */
updated_at: string, };

export type Notification = { 
/**
 * Notification id.
 */
id: string, 
/**
 * What it is about (`task_run_failed`, `notify_step`, …).
 */
kind: string, 
/**
 * `info`, `warning` or `error`.
 */
level: "info" | "warning" | "error", 
/**
 * One line, plain text.
 */
title: string, 
/**
 * The details, plain text.
 */
body: string, 
/**
 * The console route of its subject.
 */
link: string, 
/**
 * The task it is about.
 */
task_id: string | null, 
/**
 * The run it is about.
 */
run_id: string | null, 
/**
 * The conversation it is about.
 */
conversation_id: string | null, 
/**
 * The device it is about.
 */
device: string | null, 
/**
 * Made (ISO-8601 UTC).
 */
created_at: string, 
/**
 * Whether this reader has read it.
 */
read: boolean, };

export type NotificationList = { 
/**
 * The page, newest first.
 */
items: Array<Notification>, 
/**
 * How many the list (with the `unread` filter) holds.
 */
total: number, 
/**
 * How many this reader has not read.
 */
unread_count: number, };

export type MemberState = "online" | "silent" | "stopped";

export type FleetDevice = { 
/**
 * The device's id.
 */
id: string, 
/**
 * The lease's epoch (raised at every new holder).
 */
epoch: number, 
/**
 * Since when this server holds it (ISO-8601 UTC).
 */
since: string, 
/**
 * When the lease lapses unless renewed (ISO-8601 UTC).
 */
lease_until: string, };

export type FleetMember = { 
/**
 * Its id.
 */
id: string, 
/**
 * What people call it (host and port).
 */
name: string, 
/**
 * The URL its console answers on.
 */
address: string, 
/**
 * deft's version it runs.
 */
version: string, 
/**
 * Online, silent or stopped.
 */
state: MemberState, 
/**
 * When its process started (ISO-8601 UTC).
 */
started_at: string, 
/**
 * Its last heartbeat (ISO-8601 UTC).
 */
last_heartbeat: string, 
/**
 * The devices it holds.
 */
devices: Array<FleetDevice>, };

export type FleetView = { 
/**
 * Whether this server is in a fleet (PostgreSQL); on SQLite it is alone and `servers` is
 * empty.
 */
enabled: boolean, 
/**
 * This server's id.
 */
this_server: string, 
/**
 * Every server registered on the database, by name.
 */
servers: Array<FleetMember>, };

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
 * Its listed type (empty in records made before it was kept).
 */
type: string, 
/**
 * The match score, 1–100.
 */
score: number, 
/**
 * Its value when it matched (an edit's text, a display's "56"): what a person reads of a
 * control without a name.
 */
value?: string, 
/**
 * How a tie was broken when several controls matched equally well (`2 controls score
 * 100; index 0 in document order picks id 7`): the step may have acted on another
 * control than the one meant.
 */
tie?: string, };

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

export type TaskStepRetry = { 
/**
 * As in [`TaskStepStart::path`].
 */
path: string, 
/**
 * The step type.
 */
step_type: string, 
/**
 * The attempt that failed, from 1.
 */
attempt: number, 
/**
 * How many attempts the step gets in all (`retry.times` + 1).
 */
attempts: number, 
/**
 * Why the attempt failed.
 */
error: string, 
/**
 * The pause before the next attempt (a stop cuts it short).
 */
delay_ms: number, };

export type TaskRound = { 
/**
 * The `for_each` step's path; its sub-steps' paths this round end in `#round`.
 */
path: string, 
/**
 * The round, from 1.
 */
round: number, 
/**
 * How many rounds the loop has.
 */
rounds: number, 
/**
 * The round's variables and their values, by name.
 */
values: { [key in string]: string }, };

export type MemoryKind = "experience" | "action";

export type MemoryOutcome = "recalled" | "saved" | "merged" | "dropped";

export type MemoryItem = { 
/**
 * The entry's id in its library; absent for a dropped candidate, which was never stored.
 */
id?: string | null, 
/**
 * Its title (an experience) or name (an action).
 */
title: string, 
/**
 * How similar it is to the run's task, 0–1 (recalled items).
 */
score?: number | null, 
/**
 * Why it was dropped or trimmed.
 */
reason?: string | null, };

export type MemoryNote = { 
/**
 * The library.
 */
kind: MemoryKind, 
/**
 * What happened.
 */
outcome: MemoryOutcome, 
/**
 * The entries.
 */
items: Array<MemoryItem>, 
/**
 * One line for a person.
 */
note: string, };

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
approve: boolean, } | { "type": "task_step_start" } & TaskStepStart | { "type": "task_step" } & TaskStepResult | { "type": "task_step_retry" } & TaskStepRetry | { "type": "task_round" } & TaskRound | { "type": "memory" } & MemoryNote | { "type": "error", 
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
status: DoneStatus, 
/**
 * `chat` or `designer` (agent runs; task runs leave it out).
 */
mode?: RunMode, 
/**
 * Designer mode: the validated task file the run drafted (not a task until a person
 * saves it).
 */
draft?: unknown, 
/**
 * Designer mode, with `draft`: what is valid but suspect in it (the validator's
 * warnings, selectors the exploration never saw match), each at its path.
 */
warnings?: Array<DraftIssue>, 
/**
 * Designer mode, without `draft`: why the run ended with no valid draft (the tool-call
 * limit, a stop, the model gave up or never submitted).
 */
draft_error?: string, 
/**
 * A run with an output schema: its final answer checked against the schema — the
 * parsed value, or the errors and the answer's text.
 */
output?: TypedResult, };

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
approve: boolean, } | { "type": "task_step_start" } & TaskStepStart | { "type": "task_step" } & TaskStepResult | { "type": "task_step_retry" } & TaskStepRetry | { "type": "task_round" } & TaskRound | { "type": "memory" } & MemoryNote | { "type": "error", 
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
status: DoneStatus, 
/**
 * `chat` or `designer` (agent runs; task runs leave it out).
 */
mode?: RunMode, 
/**
 * Designer mode: the validated task file the run drafted (not a task until a person
 * saves it).
 */
draft?: unknown, 
/**
 * Designer mode, with `draft`: what is valid but suspect in it (the validator's
 * warnings, selectors the exploration never saw match), each at its path.
 */
warnings?: Array<DraftIssue>, 
/**
 * Designer mode, without `draft`: why the run ended with no valid draft (the tool-call
 * limit, a stop, the model gave up or never submitted).
 */
draft_error?: string, 
/**
 * A run with an output schema: its final answer checked against the schema — the
 * parsed value, or the errors and the answer's text.
 */
output?: TypedResult, });

/** One problem the validator found, at its path. */
export type Issue = { path: string, message: string, line?: number, column?: number, };

/** The validator's report. */
export type ValidationReport = { valid: boolean, errors: Array<Issue>, warnings: Array<Issue>, };

/** What started a task run. */
export type TaskTrigger = "manual" | "schedule" | "api" | "try";

/** Where a task run is, or how it ended. */
export type TaskRunStatus = "running" | "ok" | "failed" | "stopped" | "skipped" | "timed_out" | "interrupted";

export type StepCounts = { 
/**
 * Succeeded.
 */
ok: number, 
/**
 * Failed.
 */
failed: number, 
/**
 * Skipped.
 */
skipped: number, 
/**
 * Found their control only by the fuzzy fallback.
 */
healed: number, };

export type TaskRun = { 
/**
 * Run id.
 */
id: string, 
/**
 * Its task (which may since have been deleted).
 */
task_id: string, 
/**
 * The task's name when it ran.
 */
task_name: string, 
/**
 * What started it.
 */
trigger: TaskTrigger, 
/**
 * The schedule that fired.
 */
schedule_id?: string, 
/**
 * When that fire was due (ISO-8601 UTC).
 */
fire_at?: string, 
/**
 * The device it ran on.
 */
device: string, 
/**
 * Where it is, or how it ended.
 */
status: TaskRunStatus, 
/**
 * Started (ISO-8601 UTC).
 */
started_at: string, 
/**
 * Ended (ISO-8601 UTC).
 */
ended_at?: string, 
/**
 * Why it failed, was stopped or skipped.
 */
error?: string, 
/**
 * The variables it ran with.
 */
variables: Record<string, unknown>, 
/**
 * Its executed steps by outcome.
 */
steps: StepCounts, 
/**
 * The version of the task it ran (none for a draft's try).
 */
task_version?: number, };

export type TaskRunStep = { 
/**
 * Execution order, from 0.
 */
seq: number, 
/**
 * Where the step is in the task (`steps[3].then[0]`).
 */
path: string, 
/**
 * Its type.
 */
step_type: string, 
/**
 * `ok`, `failed` or `skipped`.
 */
status: StepStatus, 
/**
 * Started (ISO-8601 UTC).
 */
started_at: string, 
/**
 * How long it took.
 */
duration_ms: number, 
/**
 * The control it acted on: `{id, name, type, score, value?, tie?}` (steps stored before
 * the type, value and tie were kept have an empty type and neither).
 */
matched?: MatchedControl, 
/**
 * The selector as written when only the fuzzy fallback found the control.
 */
healed_from?: unknown, 
/**
 * What went wrong.
 */
error?: string, 
/**
 * What it had to say when it worked (a `notify` text, a loop's rounds, a wait's length).
 */
message?: string, 
/**
 * Screenshots kept with it (the task's `screenshots`), served at
 * `/api/task-runs/{run id}/images/{image id}`.
 */
image_ids: Array<string>, };

export type TaskRunDetail = { 
/**
 * Its executed steps, in order.
 */
step_results: Array<TaskRunStep>, 
/**
 * The step running now (a running run).
 */
current_step?: TaskStepStart, 
/**
 * The newest event's seq (0 before the first); the event stream continues after it.
 */
last_seq: number, 
/**
 * Run id.
 */
id: string, 
/**
 * Its task (which may since have been deleted).
 */
task_id: string, 
/**
 * The task's name when it ran.
 */
task_name: string, 
/**
 * What started it.
 */
trigger: TaskTrigger, 
/**
 * The schedule that fired.
 */
schedule_id?: string, 
/**
 * When that fire was due (ISO-8601 UTC).
 */
fire_at?: string, 
/**
 * The device it ran on.
 */
device: string, 
/**
 * Where it is, or how it ended.
 */
status: TaskRunStatus, 
/**
 * Started (ISO-8601 UTC).
 */
started_at: string, 
/**
 * Ended (ISO-8601 UTC).
 */
ended_at?: string, 
/**
 * Why it failed, was stopped or skipped.
 */
error?: string, 
/**
 * The variables it ran with.
 */
variables: Record<string, unknown>, 
/**
 * Its executed steps by outcome.
 */
steps: StepCounts, 
/**
 * The version of the task it ran (none for a draft's try).
 */
task_version?: number, };

export type Schedule = { 
/**
 * Schedule id.
 */
id: string, 
/**
 * Its task.
 */
task_id: string, 
/**
 * `cron`, `every` or `once`.
 */
kind: "cron" | "every" | "once", 
/**
 * The cron expression (cron).
 */
expr?: string, 
/**
 * The IANA time zone (cron).
 */
tz?: string, 
/**
 * The interval in seconds (every).
 */
seconds?: number, 
/**
 * The moment (once, ISO-8601 UTC).
 */
at?: string, 
/**
 * When it fires, in words ("every day at 03:47 (Europe/Berlin)").
 */
description: string, 
/**
 * A missed fire: `run_once` or `skip`.
 */
misfire: "run_once" | "skip", 
/**
 * A fire while the task runs or its device is busy: `wait` or `skip`.
 */
busy: "wait" | "skip", 
/**
 * Off: it does not fire.
 */
enabled: boolean, 
/**
 * The coming fires (ISO-8601 UTC), at most three; empty when nothing is due (off, a
 * once schedule that fired).
 */
next_fires: Array<string>, 
/**
 * The last fire claimed (ISO-8601 UTC).
 */
last_fire_at?: string, 
/**
 * Created (ISO-8601 UTC).
 */
created_at: string, 
/**
 * Last changed by a person (ISO-8601 UTC).
 */
updated_at: string, };

export type ScheduleSummary = { 
/**
 * Schedule id.
 */
id: string, 
/**
 * When it fires, in words ("every 15 minutes").
 */
description: string, 
/**
 * Off: it does not fire.
 */
enabled: boolean, };

export type TaskNotify = { 
/**
 * A run that fails, times out or is interrupted.
 */
on_failure: boolean, 
/**
 * A run that succeeds.
 */
on_success: boolean, 
/**
 * Each `notify` step a run carries out.
 */
on_notify_step: boolean, };

export type Task = { 
/**
 * Task id.
 */
id: string, 
/**
 * Its unique name.
 */
name: string, 
/**
 * The device its runs use.
 */
device: string, 
/**
 * Off: its schedules do not fire.
 */
enabled: boolean, 
/**
 * What its runs report as notifications.
 */
notify: TaskNotify, 
/**
 * Its folder (`""`: the top).
 */
folder: string, 
/**
 * Its tags.
 */
tags: Array<string>, 
/**
 * The number of its newest version.
 */
version: number, 
/**
 * How many schedules it has.
 */
schedule_count: number, 
/**
 * Its schedules in words, oldest first (the task list shows them).
 */
schedule_summaries: Array<ScheduleSummary>, 
/**
 * The earliest next fire of its enabled schedules (ISO-8601 UTC).
 */
next_fire_at?: string, 
/**
 * Its most recent run.
 */
last_run?: TaskRun, 
/**
 * Created (ISO-8601 UTC).
 */
created_at: string, 
/**
 * Last changed (ISO-8601 UTC).
 */
updated_at: string, };

export type TaskDetail = { 
/**
 * The task file.
 */
definition: unknown, 
/**
 * Its schedules, oldest first.
 */
schedules: Array<Schedule>, 
/**
 * What the validator found suspect when it was stored by this request (else empty).
 */
warnings: Array<Issue>, 
/**
 * Task id.
 */
id: string, 
/**
 * Its unique name.
 */
name: string, 
/**
 * The device its runs use.
 */
device: string, 
/**
 * Off: its schedules do not fire.
 */
enabled: boolean, 
/**
 * What its runs report as notifications.
 */
notify: TaskNotify, 
/**
 * Its folder (`""`: the top).
 */
folder: string, 
/**
 * Its tags.
 */
tags: Array<string>, 
/**
 * The number of its newest version.
 */
version: number, 
/**
 * How many schedules it has.
 */
schedule_count: number, 
/**
 * Its schedules in words, oldest first (the task list shows them).
 */
schedule_summaries: Array<ScheduleSummary>, 
/**
 * The earliest next fire of its enabled schedules (ISO-8601 UTC).
 */
next_fire_at?: string, 
/**
 * Its most recent run.
 */
last_run?: TaskRun, 
/**
 * Created (ISO-8601 UTC).
 */
created_at: string, 
/**
 * Last changed (ISO-8601 UTC).
 */
updated_at: string, };

export type ExperienceAudit = { 
/**
 * `none`, `pending` (the audit suggests deleting it; a person decides) or `kept`.
 */
state: "none" | "pending" | "kept", 
/**
 * The latest review's score, 0–100.
 */
score?: number, 
/**
 * The latest review's reason.
 */
reason?: string, 
/**
 * When it was last reviewed (ISO-8601 UTC).
 */
audited_at?: string, };

export type Experience = { 
/**
 * Its id.
 */
id: string, 
/**
 * The task it is for.
 */
task: string, 
/**
 * Its title.
 */
title: string, 
/**
 * The recipe.
 */
recipe: string, 
/**
 * The run it was distilled (or last merged) from; absent when a person wrote it.
 */
source_run?: string, 
/**
 * How often it was recalled.
 */
hits: number, 
/**
 * Its last recall (ISO-8601 UTC).
 */
last_used_at?: string, 
/**
 * The audit's mark.
 */
audit: ExperienceAudit, 
/**
 * Created (ISO-8601 UTC).
 */
created_at: string, 
/**
 * Last changed (ISO-8601 UTC).
 */
updated_at: string, };

export type ExperienceReview = { 
/**
 * The audit pass.
 */
audit_id: string, 
/**
 * `keep` or `delete`.
 */
verdict: "keep" | "delete", 
/**
 * 0–100.
 */
score: number, 
/**
 * Why.
 */
reason: string, 
/**
 * When (ISO-8601 UTC).
 */
created_at: string, 
/**
 * What a person did with a delete suggestion: `kept` or `deleted`.
 */
decision?: "kept" | "deleted", 
/**
 * When they did (ISO-8601 UTC).
 */
decided_at?: string, };

export type ExperienceDetail = { 
/**
 * The audit's reviews of it.
 */
reviews: Array<ExperienceReview>, 
/**
 * Its id.
 */
id: string, 
/**
 * The task it is for.
 */
task: string, 
/**
 * Its title.
 */
title: string, 
/**
 * The recipe.
 */
recipe: string, 
/**
 * The run it was distilled (or last merged) from; absent when a person wrote it.
 */
source_run?: string, 
/**
 * How often it was recalled.
 */
hits: number, 
/**
 * Its last recall (ISO-8601 UTC).
 */
last_used_at?: string, 
/**
 * The audit's mark.
 */
audit: ExperienceAudit, 
/**
 * Created (ISO-8601 UTC).
 */
created_at: string, 
/**
 * Last changed (ISO-8601 UTC).
 */
updated_at: string, };

export type LibraryAction = { 
/**
 * Its id.
 */
id: string, 
/**
 * Its name.
 */
name: string, 
/**
 * Other names.
 */
aliases: Array<string>, 
/**
 * What it does.
 */
description: string, 
/**
 * The application it works in.
 */
app?: string, 
/**
 * Its variables and their defaults.
 */
variables: { [key in string]: string }, 
/**
 * Its steps (the task step language, library mode).
 */
steps: Array<unknown>, 
/**
 * The run it was distilled (or last merged) from.
 */
source_run?: string, 
/**
 * How often it was recalled or run.
 */
hits: number, 
/**
 * Its last recall or run (ISO-8601 UTC).
 */
last_used_at?: string, 
/**
 * Created (ISO-8601 UTC).
 */
created_at: string, 
/**
 * Last changed (ISO-8601 UTC).
 */
updated_at: string, };

export type ActionTry = { 
/**
 * The action's name.
 */
action: string, 
/**
 * Where the steps' images are: `/api/runs/{run_id}/images/{image_id}`.
 */
run_id: string, 
/**
 * The device it ran on.
 */
device: string, 
/**
 * Every step completed.
 */
completed: boolean, 
/**
 * A line per step, as `run_action` answers the model.
 */
text: string, 
/**
 * Each step's result.
 */
steps: Array<TaskStepResult>, };

export type AuditRun = { 
/**
 * Its id.
 */
id: string, 
/**
 * `schedule` or `manual`.
 */
trigger: "schedule" | "manual", 
/**
 * `running`, `ok` or `failed`.
 */
status: "running" | "ok" | "failed", 
/**
 * Started (ISO-8601 UTC).
 */
started_at: string, 
/**
 * Ended (ISO-8601 UTC).
 */
finished_at?: string, 
/**
 * Experiences reviewed.
 */
reviewed: number, 
/**
 * Of those, suggested for deletion.
 */
suggested: number, 
/**
 * Why it failed.
 */
error?: string, };

export type AuditSchedule = { 
/**
 * The cron expression (5 fields).
 */
cron: string, 
/**
 * Its IANA time zone (the server's by default).
 */
tz: string, 
/**
 * Whether it fires.
 */
enabled: boolean, 
/**
 * The next fire (ISO-8601 UTC).
 */
next_fire_at?: string, 
/**
 * In words ("every day at 03:47 (Europe/Berlin)").
 */
description: string, };

export type AuditState = { 
/**
 * The pass under way, if any.
 */
running: AuditRun | null, 
/**
 * The newest finished pass.
 */
last: AuditRun | null, 
/**
 * When the daily audit runs.
 */
schedule: AuditSchedule, };

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
  "task_step_retry",
  "task_round",
  "memory",
  "error",
  "done",
] as const;
