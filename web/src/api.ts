// The console's HTTP client: same-origin cookies, the CSRF header on every change, and errors that
// carry the server's own `error` text.
import type {
  Conversation,
  ConversationDetail,
  Device,
  RunInfo,
  Settings,
} from "./types";

/** An API answer that was not 2xx; `message` is the server's `error` text when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
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

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["X-CSRF-Token"] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
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
    const err = new ApiError(res.status, serverText || `HTTP ${res.status}`);
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

  conversations: () => request<Conversation[]>("GET", "/api/conversations"),
  conversation: (id: string) =>
    request<ConversationDetail>("GET", `/api/conversations/${encodeURIComponent(id)}`),
  renameConversation: (id: string, title: string) =>
    request<Conversation>("PATCH", `/api/conversations/${encodeURIComponent(id)}`, { title }),
  deleteConversation: (id: string) =>
    request<void>("DELETE", `/api/conversations/${encodeURIComponent(id)}`),

  startRun: (prompt: string, conversation?: string, device?: string) =>
    request<{ run_id: string; conversation: string; device: string }>("POST", "/api/agent/run", {
      prompt,
      ...(conversation ? { conversation } : {}),
      ...(device ? { device } : {}),
    }),
  activeRun: () => request<{ run: RunInfo | null }>("GET", "/api/agent/run"),
  run: (runId: string) => request<RunInfo>("GET", `/api/agent/runs/${encodeURIComponent(runId)}`),
  stop: (runId: string) =>
    request<{ run_id: string; stopping: boolean }>("POST", "/api/agent/stop", { run_id: runId }),
  confirm: (runId: string, callId: string, approve: boolean) =>
    request<unknown>("POST", "/api/agent/confirm", { run_id: runId, call_id: callId, approve }),

  devices: () => request<Device[]>("GET", "/api/devices"),
};

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
