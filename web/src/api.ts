// The console's HTTP client: same-origin cookies, the CSRF header on every change, and errors that
// carry the server's own `error` text.
import type {
  ActionTry,
  AuditRun,
  AuditSchedule,
  AuditState,
  CommandResult,
  Conversation,
  ConversationDetail,
  Device,
  Experience,
  ExperienceDetail,
  FleetView,
  Issue,
  LibraryAction,
  NotificationList,
  RunInfo,
  RunMode,
  RunStarted,
  Schedule,
  Secret,
  SecretList,
  ApiTokenView,
  Webhook,
  WebhookDelivery,
  Settings,
  Task,
  TaskDetail,
  TaskDraft,
  TaskNotify,
  TaskRun,
  TaskRunDetail,
  ValidationReport,
} from "./types";
import { metaQuery, type FolderCount, type ImportReport, type OnClash, type SaveMeta, type TagCount, type TaskVersion, type VersionDiff } from "./task-versions";

/** An API answer that was not 2xx; `message` is the server's `error` text when it sent one, `body`
 * the whole answer (a refused task or schedule lists its `errors` and `warnings` there). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown = undefined,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** The problems a 400 listed at their paths (a refused task file or schedule), if any. */
  get issues(): { errors: Issue[]; warnings: Issue[] } | null {
    const b = this.body as { errors?: unknown; warnings?: unknown } | undefined;
    if (!b || !Array.isArray(b.errors)) return null;
    return { errors: b.errors as Issue[], warnings: Array.isArray(b.warnings) ? (b.warnings as Issue[]) : [] };
  }

  /** The message of each error a 400 listed, by its path (a form shows each at its field). */
  get byPath(): Record<string, string> {
    return Object.fromEntries((this.issues?.errors ?? []).map((i) => [i.path, i.message]));
  }
}

/** The text of anything thrown: an Error's message, else the value as a string. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

let csrfToken = "";

/** Remembers the session's CSRF token (from login, setup or /api/auth/me). */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Called when the server answers 401 to a logged-in page (the session ended). */
let onUnauthorized: () => void = () => {};

/** Sets what happens when the session has ended. */
export function setUnauthorizedHandler(f: () => void): void {
  onUnauthorized = f;
}

/** A request with a JSON body (`body` is serialized), or none. */
function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  return send<T>(method, path, body === undefined ? undefined : JSON.stringify(body));
}

/** A request whose body is JSON text already (a task file as the person typed it). */
async function send<T>(method: string, path: string, body?: string): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["X-CSRF-Token"] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body,
    });
  } catch (e) {
    throw new ApiError(0, `cannot reach the deft server (${errorText(e)})`);
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
  }
  if (!res.ok) {
    const serverText =
      data && typeof data === "object" && typeof (data as { error?: unknown }).error === "string"
        ? (data as { error: string }).error
        : text.trim() || res.statusText;
    const err = new ApiError(res.status, serverText || `HTTP ${res.status}`, data);
    if (res.status === 401 && !path.startsWith("/api/auth/")) onUnauthorized();
    throw err;
  }
  return data as T;
}

/** Login state of this browser. */
export interface AuthState {
  setup_required: boolean;
  logged_in: boolean;
}

/** Who is logged in. */
export interface Me {
  username: string;
  csrf_token: string;
}

/** The API, one function per route. */
export const api = {
  authState: () => request<AuthState>("GET", "/api/auth/state"),
  me: () => request<Me>("GET", "/api/auth/me"),
  login: (username: string, password: string) =>
    request<Me>("POST", "/api/auth/login", { username, password }),
  setup: (token: string, username: string, password: string) =>
    request<Me>("POST", "/api/auth/setup", { token, username, password }),
  logout: () => request<void>("POST", "/api/auth/logout"),

  settings: () => request<Settings>("GET", "/api/settings"),
  saveSettings: (s: Partial<Omit<Settings, "api_key_set" | "api_key_masked">> & { api_key?: string }) =>
    request<Settings>("PUT", "/api/settings", s),

  /** How long runs and their images are kept, and what the last pass removed. */
  retention: () => request<Retention>("GET", "/api/settings/retention"),
  /** Sets the retention (null: forever); answers it as stored. */
  saveRetention: (r: { run_days: number | null; image_days: number | null }) =>
    request<Retention>("PUT", "/api/settings/retention", r),

  /** The named API tokens (never a value) and the scopes there are. */
  tokens: () => request<{ items: ApiTokenView[]; scopes: string[] }>("GET", "/api/tokens"),
  /** Makes a token; the answer's value is shown this once. */
  createToken: (name: string, scopes: string[], expires_in_days?: number) =>
    request<{ token: ApiTokenView; value: string }>("POST", "/api/tokens", { name, scopes, expires_in_days }),
  /** Revokes a token: the server refuses its next call. */
  revokeToken: (name: string) => request<{ token: ApiTokenView }>("DELETE", `/api/tokens/${enc(name)}`),
  /** The secrets by name (never a value). */
  secrets: () => request<SecretList>("GET", "/api/secrets"),
  /** Creates or replaces a secret. */
  setSecret: (name: string, value: string) => request<Secret>("PUT", `/api/secrets/${enc(name)}`, { value }),
  /** Deletes a secret; 409 naming the tasks while any uses it. */
  deleteSecret: (name: string) => request<void>("DELETE", `/api/secrets/${enc(name)}`),

  /** The webhooks (never a secret) and the events one can choose. */
  webhooks: () => request<{ items: Webhook[]; events: string[] }>("GET", "/api/webhooks"),
  /** Makes a webhook: it and its signing secret, shown this once. */
  createWebhook: (name: string, url: string, events: string[]) =>
    request<{ webhook: Webhook; secret: string }>("POST", "/api/webhooks", { name, url, events }),
  /** Changes a webhook (each field given). */
  updateWebhook: (id: string, change: { name?: string; url?: string; events?: string[]; enabled?: boolean }) =>
    request<{ webhook: Webhook }>("PATCH", `/api/webhooks/${enc(id)}`, change),
  /** Deletes a webhook and its delivery log. */
  deleteWebhook: (id: string) => request<void>("DELETE", `/api/webhooks/${enc(id)}`),
  /** A new signing secret, shown this once. */
  rotateWebhook: (id: string) => request<{ webhook: Webhook; secret: string }>("POST", `/api/webhooks/${enc(id)}/rotate`),
  /** Queues a `ping`. */
  testWebhook: (id: string) => request<{ delivery: WebhookDelivery }>("POST", `/api/webhooks/${enc(id)}/test`),
  /** A page of a webhook's deliveries, newest first. */
  webhookDeliveries: (id: string, before?: string) =>
    request<{ items: WebhookDelivery[]; next: string | null }>(
      "GET",
      `/api/webhooks/${enc(id)}/deliveries${before ? `?before=${enc(before)}` : ""}`,
    ),
  /** Sends a delivery's event again as a new delivery. */
  redeliverWebhook: (id: string, delivery: string) =>
    request<{ delivery: WebhookDelivery }>("POST", `/api/webhooks/${enc(id)}/deliveries/${enc(delivery)}/redeliver`),

  conversations: () => request<Conversation[]>("GET", "/api/conversations"),
  conversation: (id: string) =>
    request<ConversationDetail>("GET", `/api/conversations/${encodeURIComponent(id)}`),
  renameConversation: (id: string, title: string) =>
    request<Conversation>("PATCH", `/api/conversations/${encodeURIComponent(id)}`, { title }),
  deleteConversation: (id: string) =>
    request<void>("DELETE", `/api/conversations/${encodeURIComponent(id)}`),

  /** Starts a chat run (in `conversation`, or a new one) or, with `mode: "designer"`, a designer
   * run (always a fresh conversation). 409 while any run holds the one slot. */
  startRun: (prompt: string, conversation?: string, device?: string, mode: RunMode = "chat") =>
    request<RunStarted>("POST", "/api/agent/run", {
      prompt,
      ...(conversation ? { conversation } : {}),
      ...(device ? { device } : {}),
      ...(mode === "chat" ? {} : { mode }),
    }),
  activeRun: () => request<{ run: RunInfo | null }>("GET", "/api/agent/run"),
  run: (runId: string) => request<RunInfo>("GET", `/api/agent/runs/${encodeURIComponent(runId)}`),
  stop: (runId: string) =>
    request<{ run_id: string; stopping: boolean }>("POST", "/api/agent/stop", { run_id: runId }),
  confirm: (runId: string, callId: string, approve: boolean) =>
    request<unknown>("POST", "/api/agent/confirm", { run_id: runId, call_id: callId, approve }),

  /** The draft the latest designer run kept; 404 when none is. */
  draft: () => request<TaskDraft>("GET", "/api/agent/draft"),
  discardDraft: () => request<void>("DELETE", "/api/agent/draft"),
  /** Runs a draft (the kept one, or `draft` as edited) once through the task runner: a task run
   * with trigger `try`, followed like any task run. */
  tryDraft: (draft: unknown, device?: string, scope?: RunScope) =>
    request<TaskRun>("POST", "/api/agent/draft/try", { draft, ...(device ? { device } : {}), ...(scope ?? {}) }),

  devices: () => request<Device[]>("GET", "/api/devices"),
  /** The fleet's servers and the devices each holds (on SQLite: not enabled, no servers). */
  fleet: () => request<FleetView>("GET", "/api/fleet"),
  /** Runs batches of tool calls on a device (`POST /api/devices/{id}/exec`): one list of
   * Results per batch. 409 while the device is busy. */
  exec: (device: string, batches: ExecBatch[]) =>
    request<CommandResult[][]>("POST", `/api/devices/${enc(device)}/exec?deadline_secs=30`, batches),

  tasks: (q: string, limit: number, offset: number, f: { folder?: string; tag?: string } = {}) =>
    request<Paged<Task>>("GET", `/api/tasks?${query({ q, limit, offset, folder: f.folder ?? "", tag: f.tag ?? "" })}`),
  /** Every folder that holds a task (and its ancestors), with its count. */
  taskFolders: () => request<{ items: FolderCount[] }>("GET", "/api/tasks/folders"),
  /** Every tag, with its count. */
  taskTags: () => request<{ items: TagCount[] }>("GET", "/api/tasks/tags"),
  /** A task's versions, newest first. */
  taskVersions: (id: string, limit = 200) => request<Paged<TaskVersion>>("GET", `/api/tasks/${enc(id)}/versions?limit=${limit}`),
  /** The structural diff of two versions of a task. */
  taskVersionDiff: (id: string, from: number, to: number) =>
    request<VersionDiff>("GET", `/api/tasks/${enc(id)}/versions/diff?${query({ from, to })}`),
  /** Saves version `n` again as the task's next version. */
  restoreTaskVersion: (id: string, n: number) => request<TaskDetail>("POST", `/api/tasks/${enc(id)}/versions/${n}/restore`),
  /** Imports an export document (its text): the report, also when the server refuses it (400, 409). */
  importTasks: async (text: string, dryRun: boolean, onClash: OnClash): Promise<ImportReport> => {
    try {
      return await send<ImportReport>("POST", `/api/tasks/import?${query({ dry_run: String(dryRun), on_clash: onClash })}`, text);
    } catch (e) {
      const b = e instanceof ApiError ? (e.body as Partial<ImportReport> | undefined) : undefined;
      if (b && Array.isArray(b.errors) && Array.isArray(b.clashes)) return b as ImportReport;
      throw e;
    }
  },
  task: (id: string) => request<TaskDetail>("GET", `/api/tasks/${enc(id)}`),
  /** Checks a task file (`text`, sent as typed); never stores. */
  validateTask: (text: string, device?: string, library = false) =>
    send<ValidationReport>(
      "POST",
      `/api/tasks/validate?${query({ device: device ?? "", mode: library ? "library" : "" })}`,
      text,
    ),
  /** Creates a task from its file (`enabled: false`: switched off, so no schedule fires yet), in
   * `meta`'s folder with its tags. */
  createTask: (text: string, enabled = true, meta?: SaveMeta) => {
    const q = [enabled ? "" : "enabled=false", meta ? metaQuery(meta) : ""].filter(Boolean).join("&");
    return send<TaskDetail>("POST", q ? `/api/tasks?${q}` : "/api/tasks", text);
  },
  /** Saves a task's file as its next version, with its folder, tags and a note. */
  replaceTask: (id: string, text: string, meta?: SaveMeta) => send<TaskDetail>("PUT", `/api/tasks/${enc(id)}${meta ? `?${metaQuery(meta)}` : ""}`, text),
  setTaskEnabled: (id: string, enabled: boolean) =>
    request<TaskDetail>("PATCH", `/api/tasks/${enc(id)}`, { enabled }),
  /** Changes what a task's runs report as notifications (the settings not given stay). */
  setTaskNotify: (id: string, notify: Partial<TaskNotify>) =>
    request<TaskDetail>("PATCH", `/api/tasks/${enc(id)}`, { notify }),
  deleteTask: (id: string) => request<void>("DELETE", `/api/tasks/${enc(id)}`),

  /** The newest notifications with this reader's read state and unread count. */
  notifications: (limit = 30) => request<NotificationList>("GET", `/api/notifications?limit=${limit}`),
  readNotification: (id: string) =>
    request<{ unread_count: number }>("POST", `/api/notifications/${enc(id)}/read`),
  readAllNotifications: () => request<{ unread_count: number }>("POST", "/api/notifications/read-all"),
  runTask: (id: string, variables: Record<string, string>, device?: string) =>
    request<TaskRun>("POST", `/api/tasks/${enc(id)}/run`, { variables, ...(device ? { device } : {}) }),

  addSchedule: (task: string, body: ScheduleBody) =>
    request<Schedule>("POST", `/api/tasks/${enc(task)}/schedules`, body),
  replaceSchedule: (task: string, id: string, body: ScheduleBody) =>
    request<Schedule>("PUT", `/api/tasks/${enc(task)}/schedules/${enc(id)}`, body),
  setScheduleEnabled: (task: string, id: string, enabled: boolean) =>
    request<Schedule>("PATCH", `/api/tasks/${enc(task)}/schedules/${enc(id)}`, { enabled }),
  deleteSchedule: (task: string, id: string) =>
    request<void>("DELETE", `/api/tasks/${enc(task)}/schedules/${enc(id)}`),

  taskRuns: (f: { task?: string; status?: string }, limit: number, offset: number) =>
    request<Paged<TaskRun>>(
      "GET",
      `/api/task-runs?${query({ task: f.task ?? "", status: f.status ?? "", limit, offset })}`,
    ),
  /** A page of the run history for a query run-query.ts made (filters, sort, cursor). */
  taskRunsQuery: (q: string) => request<RunPage>("GET", `/api/task-runs?${q}`),
  taskRun: (id: string) => request<TaskRunDetail>("GET", `/api/task-runs/${enc(id)}`),
  stopTaskRun: (id: string) =>
    request<{ run_id: string; stopping: boolean }>("POST", `/api/task-runs/${enc(id)}/stop`),

  /** Experiences (docs/console-api.md "Memory"): `state` none, pending (the audit suggests
   * deleting them) or kept. */
  experiences: (f: { q?: string; state?: string }, limit: number, offset: number) =>
    request<Paged<Experience>>("GET", `/api/memory/experiences?${query({ q: f.q ?? "", state: f.state ?? "", limit, offset })}`),
  experience: (id: string) => request<ExperienceDetail>("GET", `/api/memory/experiences/${enc(id)}`),
  createExperience: (e: ExperienceBody) => request<Experience>("POST", "/api/memory/experiences", e),
  replaceExperience: (id: string, e: ExperienceBody) => request<Experience>("PUT", `/api/memory/experiences/${enc(id)}`, e),
  /** A person deletes it (confirming the audit's suggestion, if there is one). */
  deleteExperience: (id: string) => request<void>("DELETE", `/api/memory/experiences/${enc(id)}`),
  /** A person keeps it: never suggested for deletion again. */
  keepExperience: (id: string) => request<Experience>("POST", `/api/memory/experiences/${enc(id)}/keep`),

  audit: () => request<AuditState>("GET", "/api/memory/audit"),
  /** Starts an audit pass now (409 while one runs). */
  runAudit: () => request<AuditRun>("POST", "/api/memory/audit"),
  setAuditSchedule: (s: Partial<Pick<AuditSchedule, "cron" | "tz" | "enabled">>) =>
    request<AuditSchedule>("PUT", "/api/memory/audit/schedule", s),

  actions: (q: string, limit: number, offset: number) =>
    request<Paged<LibraryAction>>("GET", `/api/memory/actions?${query({ q, limit, offset })}`),
  action: (id: string) => request<LibraryAction>("GET", `/api/memory/actions/${enc(id)}`),
  /** Checks an action as the library admits it (`text`, sent as typed); never stores. */
  validateAction: (text: string) => send<ValidationReport>("POST", "/api/memory/actions/validate", text),
  createAction: (text: string) => send<LibraryAction>("POST", "/api/memory/actions", text),
  replaceAction: (id: string, text: string) => send<LibraryAction>("PUT", `/api/memory/actions/${enc(id)}`, text),
  deleteAction: (id: string) => request<void>("DELETE", `/api/memory/actions/${enc(id)}`),
  /** Runs the stored action once on a device and answers how each step went (it waits for the end). */
  tryAction: (id: string, device: string, variables: Record<string, string>) =>
    request<ActionTry>("POST", `/api/memory/actions/${enc(id)}/try`, { device, variables }),
};

/** An experience as a person writes it. */
export interface ExperienceBody {
  task: string;
  title?: string;
  recipe: string;
}

/** What a retention pass removed (`GET /api/settings/retention`'s `last`). */
export interface RetentionPass {
  at: string;
  runs: number;
  images: number;
  bytes: number;
}

/** `GET /api/settings/retention`: days to keep runs and images (absent or null: forever). */
export interface Retention {
  run_days?: number | null;
  image_days?: number | null;
  last?: RetentionPass | null;
}

/** A page of a list route. */
export interface Paged<T> {
  items: T[];
  total: number;
}

/** A page of the run history: `next_cursor` where the next page starts (absent on the last). */
export interface RunPage extends Paged<TaskRun> {
  next_cursor?: string | null;
}

/** Which steps a try runs: up to and including one (`until`, run to here) or one alone (`only`,
 * run this step), by path (`steps[2]`, `steps[2].then[0]`). */
export type RunScope = { until: string } | { only: string };

/** A batch of tool calls for `exec` (docs: `deft exec`). */
export interface ExecBatch {
  agent?: string;
  root?: string;
  process?: string;
  early_exit?: boolean;
  commands: { tool_name: string; tool_type?: "data_collection" | "action"; parameters?: Record<string, unknown> }[];
}

/** A schedule as the API takes it (docs/console-api.md "Tasks"). */
export interface ScheduleBody {
  kind: "cron" | "every" | "once";
  expr?: string;
  tz?: string;
  seconds?: number;
  at?: string;
  misfire?: "run_once" | "skip";
  busy?: "wait" | "skip";
  enabled?: boolean;
}

function enc(part: string): string {
  return encodeURIComponent(part);
}

/** A query string of the non-empty values. */
function query(values: Record<string, string | number>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== "") q.set(k, String(v));
  return q.toString();
}

/** URL of an image a task run's step kept or a tool call of it returned. */
export function taskRunImageUrl(runId: string, imageId: string): string {
  return `/api/task-runs/${enc(runId)}/images/${enc(imageId)}`;
}

/** URL of a task run's event stream. */
export function taskRunStreamUrl(runId: string): string {
  return `/api/task-runs/${enc(runId)}/events`;
}

/** URL of a step image. */
export function imageUrl(runId: string, imageId: string): string {
  return `/api/runs/${encodeURIComponent(runId)}/images/${encodeURIComponent(imageId)}`;
}

/** URL of a device's live MJPEG view. */
export function liveUrl(deviceId: string): string {
  return `/api/devices/${encodeURIComponent(deviceId)}/live`;
}

/** URL of a run's event stream. */
export function streamUrl(runId: string): string {
  return `/api/agent/stream?run_id=${encodeURIComponent(runId)}`;
}
