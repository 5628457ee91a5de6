//! Every HTTP route `deft serve` answers, declared once: the OpenAPI document is written from
//! this list, and the `openapi` test compares it with the routes the router really serves.
//!
//! Adding a route: add one entry to the group function of its tag below (same method and
//! path template as the `.route(…)` call, a unique lowerCamelCase operation id, the query,
//! body and answer types the handler really reads and writes). The named-token scope is not
//! written here: the document asks `token_access::required`, the table the server enforces.

use axum::http::Method;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::json;

use super::route::{Access, Payload, Route, route, schema};
use crate::api::{ErrorBody, ExecQuery, Health};
use crate::console::api_tokens::{CreateToken, TokenCalls, TokenCreated, TokenDetail, TokenList};
use crate::console::memory::views::{
    ActionTryView, ActionView, AuditRunView, AuditScheduleView, AuditStateView,
    ExperienceDetailView, ExperienceView,
};
use crate::console::memory::{actions, audit, experiences};
use crate::console::notifications::{self, NotificationArrived, NotificationList, UnreadCount};
use crate::console::sessions::{AuthState, Caller, LoginBody, SetupBody};
use crate::console::settings::{SettingsUpdate, SettingsView};
use crate::console::tasks::transfer::{Document, ExportQuery, ImportQuery, ImportReport};
use crate::console::tasks::versions::{DiffQuery, VersionView};
use crate::console::tasks::views::{
    ScheduleView, TaskDetailView, TaskRunDetailView, TaskRunView, TaskView, ValidationView,
};
use crate::console::tasks::{crud, history::HistoryQuery, runs as task_runs, schedules};
use crate::console::vault::{SecretList, SecretView, SetSecret};
use crate::console::views::{
    Confirmed, ConversationDetailView, ConversationView, CurrentRun, Items, PageView, RunStarted,
    RunView, Stopping,
};
use crate::console::webhooks::{
    ChangeWebhook, CreateWebhook, DeliveryPage, DeliveryQuery, DeliveryQueued, FieldRefusal,
    WebhookList, WebhookOne, WebhookSecret,
};
use crate::console::{conversations, drafts, retention::RetentionView, runs, stream::StreamQuery};
use crate::registry::DeviceDetails;

const GET: Method = Method::GET;
const POST: Method = Method::POST;
const PUT: Method = Method::PUT;
const PATCH: Method = Method::PATCH;
const DELETE: Method = Method::DELETE;

/// The tags, in the order the document lists them, with what each covers.
pub const TAGS: [(&str, &str); 15] = [
    ("server", "Health, the device link and this document."),
    ("auth", "The console's login, setup and who is calling."),
    ("settings", "Model settings and retention (admin only)."),
    (
        "devices",
        "Devices: list, details, executing command batches, the live view; the fleet of servers.",
    ),
    ("conversations", "Chat conversations and their messages."),
    (
        "runs",
        "Chat and designer runs: start, follow (SSE), stop, approve; step images.",
    ),
    (
        "tasks",
        "Tasks: files, validation, versions, folders and tags, export and import.",
    ),
    ("schedules", "When a task's runs start."),
    (
        "task-runs",
        "Task runs: start, history (filters, cursor, CSV), one run, its events.",
    ),
    (
        "memory",
        "The experience and action libraries and their audit.",
    ),
    (
        "notifications",
        "The bell: notifications, read state, the live feed (SSE).",
    ),
    (
        "secrets",
        "The secrets tasks type, by name only (admin only).",
    ),
    ("tokens", "Named API tokens (admin only)."),
    (
        "webhooks",
        "Webhooks deft POSTs its events to, and their deliveries (admin only).",
    ),
    (
        "mcp",
        "Each device as one MCP server (streamable HTTP): the HostAgent's tools, then the \
         selected application's.",
    ),
];

/// Every route, grouped by tag.
pub fn routes() -> Vec<Route> {
    [
        server(),
        auth(),
        settings(),
        devices(),
        conversations(),
        agent_runs(),
        tasks(),
        task_schedules(),
        task_run_routes(),
        memory_experiences(),
        memory_actions(),
        notification_routes(),
        secrets(),
        tokens(),
        webhooks(),
        mcp(),
    ]
    .concat()
}

fn server() -> Vec<Route> {
    let tag = "server";
    vec![
        route(tag, GET, "/health", "health")
            .summary("Whether the server answers")
            .access(Access::Open)
            .ok::<Health>(),
        route(tag, GET, "/ws", "deviceLink")
            .summary("The device link: a WebSocket `deft client` devices connect to")
            .access(Access::Device)
            .answer(
                101,
                Payload::Empty,
                "Switching to the WebSocket protocol (UFO AIP messages).",
            ),
        route(tag, GET, "/api/openapi.json", "openapiDocument")
            .summary("This document (OpenAPI 3.1)")
            .access(Access::AnyCaller)
            .answer(200, Payload::Json(any_object), "The OpenAPI document."),
    ]
}

fn auth() -> Vec<Route> {
    let tag = "auth";
    vec![
        route(tag, GET, "/api/auth/state", "authState")
            .summary("Whether setup is needed and whether the caller is logged in")
            .access(Access::Open)
            .ok::<AuthState>(),
        route(tag, POST, "/api/auth/login", "login")
            .summary("Log in as the admin: sets the session cookie")
            .access(Access::Open)
            .body::<LoginBody>()
            .ok::<Caller>()
            .errors(&[400, 401, 429]),
        route(tag, POST, "/api/auth/setup", "setup")
            .summary("Create the admin with the setup link's token: sets the session cookie")
            .access(Access::Open)
            .body::<SetupBody>()
            .ok::<Caller>()
            .errors(&[400, 403, 409]),
        route(tag, POST, "/api/auth/logout", "logout")
            .summary("End the session")
            .no_content("Logged out; the cookie is cleared."),
        route(tag, GET, "/api/auth/me", "me")
            .summary("Who is calling")
            .ok::<Caller>(),
    ]
}

fn settings() -> Vec<Route> {
    let tag = "settings";
    vec![
        route(tag, GET, "/api/settings", "getSettings")
            .summary("The model settings (the API key only as whether one is set)")
            .ok::<SettingsView>(),
        route(tag, PUT, "/api/settings", "putSettings")
            .summary("Change the model settings")
            .body::<SettingsUpdate>()
            .ok::<SettingsView>()
            .errors(&[400]),
        route(tag, GET, "/api/settings/retention", "getRetention")
            .summary("How long task runs are kept, and the last clean-up")
            .ok::<RetentionView>(),
        route(tag, PUT, "/api/settings/retention", "putRetention")
            .summary("Change how long task runs are kept")
            .body::<RetentionView>()
            .ok::<RetentionView>()
            .errors(&[400]),
    ]
}

fn devices() -> Vec<Route> {
    let tag = "devices";
    vec![
        route(tag, GET, "/api/devices", "listDevices")
            .summary("Every device: this machine's, phones, connected clients")
            .ok::<Vec<DeviceDetails>>(),
        route(tag, GET, "/api/devices/{id}", "getDevice")
            .summary("One device")
            .ok::<DeviceDetails>()
            .errors(&[404]),
        route(tag, POST, "/api/devices/{id}/exec", "execBatch")
            .summary("Execute a batch of commands (or several) on a device")
            .query::<ExecQuery>()
            .body_payload(Payload::Json(exec_input))
            .answer(
                200,
                Payload::Json(exec_answer),
                "One Result per Command, in order (a list per batch for several).",
            )
            .errors(&[400, 404, 409, 413]),
        route(tag, GET, "/api/devices/{id}/live", "liveView")
            .summary("The device's screen as MJPEG, captured while someone watches")
            .answer(200, Payload::Mjpeg, "JPEG frames until the caller leaves.")
            .errors(&[404]),
        route(tag, GET, "/api/fleet", "getFleet")
            .summary("The fleet: every server on the database, its state and the devices it holds")
            .ok::<deft_app::fleet::FleetView>(),
    ]
}

fn conversations() -> Vec<Route> {
    let tag = "conversations";
    vec![
        route(tag, GET, "/api/conversations", "listConversations")
            .summary("Every conversation, newest first")
            .ok::<Vec<ConversationView>>(),
        route(tag, POST, "/api/conversations", "createConversation")
            .summary("Start an empty conversation")
            .body::<conversations::CreateBody>()
            .json::<ConversationView>(201, "Created.")
            .errors(&[400]),
        route(tag, GET, "/api/conversations/{id}", "getConversation")
            .summary("One conversation with its messages")
            .ok::<ConversationDetailView>()
            .errors(&[404]),
        route(tag, PATCH, "/api/conversations/{id}", "renameConversation")
            .summary("Rename a conversation")
            .body::<conversations::RenameBody>()
            .ok::<ConversationView>()
            .errors(&[400, 404]),
        route(tag, DELETE, "/api/conversations/{id}", "deleteConversation")
            .summary("Delete a conversation and its runs")
            .no_content("Deleted.")
            .errors(&[404, 409]),
    ]
}

fn agent_runs() -> Vec<Route> {
    let tag = "runs";
    vec![
        route(tag, GET, "/api/agent/run", "currentRun")
            .summary("The run in the slot, if any")
            .ok::<CurrentRun>(),
        route(tag, POST, "/api/agent/run", "startRun")
            .summary("Start a chat or designer run")
            .body::<runs::StartBody>()
            .json::<RunStarted>(202, "Started; follow it on the stream.")
            .errors(&[400, 404, 409]),
        route(tag, GET, "/api/agent/runs/{id}", "getRun")
            .summary("One run, active or stored")
            .ok::<RunView>()
            .errors(&[404]),
        route(tag, POST, "/api/agent/stop", "stopRun")
            .summary("Stop the active run (or the one named)")
            .body::<runs::StopBody>()
            .ok::<Stopping>()
            .errors(&[400, 409]),
        route(tag, POST, "/api/agent/confirm", "confirmStep")
            .summary("Approve or refuse a step that waits for approval")
            .body::<runs::ConfirmBody>()
            .ok::<Confirmed>()
            .errors(&[400, 404]),
        route(tag, GET, "/api/agent/stream", "runStream")
            .summary("A run's events as SSE (`Last-Event-ID` or `after=` replays)")
            .query::<StreamQuery>()
            .answer(
                200,
                Payload::Sse(schema::<deft_protocol::AgentEvent>),
                "Events until `done`.",
            )
            .no_content("The run has ended and everything was sent.")
            .errors(&[400, 404]),
        route(tag, GET, "/api/agent/draft", "getDraft")
            .summary("Designer mode's kept draft")
            .ok::<deft_app::agent_runs::drafts::KeptDraft>()
            .errors(&[404]),
        route(tag, DELETE, "/api/agent/draft", "discardDraft")
            .summary("Discard the kept draft")
            .no_content("Discarded."),
        route(tag, POST, "/api/agent/draft/try", "tryDraft")
            .summary("Run the kept draft once as a task run")
            .body::<drafts::TryBody>()
            .json::<TaskRunView>(202, "Started.")
            .errors(&[400, 404, 409]),
        route(tag, GET, "/api/runs/{run_id}/images/{image_id}", "runImage")
            .summary("A step image of a chat or designer run")
            .answer(200, IMAGE, "The image.")
            .errors(&[404]),
    ]
}

fn tasks() -> Vec<Route> {
    let tag = "tasks";
    vec![
        route(tag, GET, "/api/tasks", "listTasks")
            .summary("Tasks, filtered and paged")
            .query::<crud::ListQuery>()
            .ok::<PageView<TaskView>>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT),
        route(tag, POST, "/api/tasks", "createTask")
            .summary("Create a task from a task file")
            .query::<crud::FileQuery>()
            .body_payload(Payload::Json(task_file))
            .json::<TaskDetailView>(201, "Created.")
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[409]),
        route(tag, POST, "/api/tasks/validate", "validateTask")
            .summary("Validate a task file without storing it")
            .query::<crud::FileQuery>()
            .body_payload(Payload::Json(task_file))
            .ok::<ValidationView>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT),
        route(tag, GET, "/api/tasks/folders", "taskFolders")
            .summary("Every folder and how many tasks it holds")
            .ok::<Items<deft_store::FolderCount>>(),
        route(tag, GET, "/api/tasks/tags", "taskTags")
            .summary("Every tag and how many tasks carry it")
            .ok::<Items<deft_store::TagCount>>(),
        route(tag, GET, "/api/tasks/export", "exportTasks")
            .summary("Export tasks with their schedules as a document")
            .query::<ExportQuery>()
            .ok::<Document>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[404]),
        route(tag, POST, "/api/tasks/import", "importTasks")
            .summary("Import an export document (dry run, clash handling)")
            .query::<ImportQuery>()
            .body::<Document>()
            .ok::<ImportReport>()
            .json::<ImportReport>(400, "Invalid: nothing was written.")
            .json::<ImportReport>(409, "Names clash: nothing was written.")
            .errors(&[413]),
        route(tag, GET, "/api/tasks/{id}", "getTask")
            .summary("One task (by id or name) with its file and schedules")
            .ok::<TaskDetailView>()
            .errors(&[404]),
        route(tag, PUT, "/api/tasks/{id}", "replaceTask")
            .summary("Replace a task's file (a new version)")
            .query::<crud::FileQuery>()
            .body_payload(Payload::Json(task_file))
            .ok::<TaskDetailView>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[404, 409]),
        route(tag, PATCH, "/api/tasks/{id}", "patchTask")
            .summary("Change a task's switch, folder, tags or notifications")
            .body::<crud::PatchBody>()
            .ok::<TaskDetailView>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[404]),
        route(tag, DELETE, "/api/tasks/{id}", "deleteTask")
            .summary("Delete a task, its schedules and versions")
            .no_content("Deleted.")
            .errors(&[404, 409]),
        route(tag, GET, "/api/tasks/{id}/versions", "listTaskVersions")
            .summary("A task's versions, newest first")
            .query::<crud::PageQuery>()
            .ok::<PageView<VersionView>>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[404]),
        route(
            tag,
            GET,
            "/api/tasks/{id}/versions/diff",
            "diffTaskVersions",
        )
        .summary("What changed between two versions")
        .query::<DiffQuery>()
        .answer(200, Payload::Json(version_diff), "The structural diff.")
        .answer(400, Payload::Json(bad_input), BAD_INPUT)
        .errors(&[404]),
        route(tag, GET, "/api/tasks/{id}/versions/{n}", "getTaskVersion")
            .summary("One version with its file")
            .answer(200, Payload::Json(version_detail), "The version.")
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[404]),
        route(
            tag,
            POST,
            "/api/tasks/{id}/versions/{n}/restore",
            "restoreTaskVersion",
        )
        .summary("Restore a version as a new one")
        .ok::<TaskDetailView>()
        .answer(400, Payload::Json(bad_input), BAD_INPUT)
        .errors(&[404, 409]),
        route(tag, POST, "/api/tasks/{id}/run", "runTask")
            .summary("Run a task now")
            .body::<task_runs::RunBody>()
            .json::<TaskRunView>(202, "Started.")
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[404, 409]),
    ]
}

fn task_schedules() -> Vec<Route> {
    let tag = "schedules";
    vec![
        route(tag, GET, "/api/tasks/{id}/schedules", "listSchedules")
            .summary("A task's schedules")
            .ok::<Vec<ScheduleView>>()
            .errors(&[404]),
        route(tag, POST, "/api/tasks/{id}/schedules", "createSchedule")
            .summary("Add a schedule (cron, every, once)")
            .body_payload(Payload::Json(schedule_body))
            .json::<ScheduleView>(201, "Created.")
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[404]),
        route(
            tag,
            GET,
            "/api/tasks/{id}/schedules/{schedule}",
            "getSchedule",
        )
        .summary("One schedule")
        .ok::<ScheduleView>()
        .errors(&[404]),
        route(
            tag,
            PUT,
            "/api/tasks/{id}/schedules/{schedule}",
            "replaceSchedule",
        )
        .summary("Replace a schedule")
        .body_payload(Payload::Json(schedule_body))
        .ok::<ScheduleView>()
        .answer(400, Payload::Json(bad_input), BAD_INPUT)
        .errors(&[404]),
        route(
            tag,
            PATCH,
            "/api/tasks/{id}/schedules/{schedule}",
            "switchSchedule",
        )
        .summary("Switch a schedule on or off")
        .body::<schedules::PatchBody>()
        .ok::<ScheduleView>()
        .answer(400, Payload::Json(bad_input), BAD_INPUT)
        .errors(&[404]),
        route(
            tag,
            DELETE,
            "/api/tasks/{id}/schedules/{schedule}",
            "deleteSchedule",
        )
        .summary("Delete a schedule")
        .no_content("Deleted.")
        .errors(&[404]),
    ]
}

fn task_run_routes() -> Vec<Route> {
    let tag = "task-runs";
    vec![
        route(tag, GET, "/api/task-runs", "listTaskRuns")
            .summary("The run history: filters, sort, offset or cursor paging")
            .query::<HistoryQuery>()
            .ok::<PageView<TaskRunView>>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT),
        route(tag, GET, "/api/task-runs/export", "exportTaskRuns")
            .summary("The filtered history as CSV or JSON, every run")
            .query::<HistoryQuery>()
            .answer(
                200,
                Payload::Export,
                "`format=csv`: RFC 4180, formulas defused; `format=json`: a JSON array of runs.",
            )
            .answer(400, Payload::Json(bad_input), BAD_INPUT),
        route(tag, GET, "/api/task-runs/{id}", "getTaskRun")
            .summary("One task run with its steps")
            .ok::<TaskRunDetailView>()
            .errors(&[404]),
        route(tag, POST, "/api/task-runs/{id}/stop", "stopTaskRun")
            .summary("Stop a task run")
            .ok::<Stopping>()
            .errors(&[404, 409]),
        route(tag, GET, "/api/task-runs/{id}/events", "taskRunEvents")
            .summary("A task run's events as SSE (`Last-Event-ID` or `after=` replays)")
            .query::<task_runs::EventsQuery>()
            .answer(
                200,
                Payload::Sse(schema::<deft_protocol::AgentEvent>),
                "Events until `done`.",
            )
            .no_content("The run has ended and everything was sent.")
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[404]),
        route(
            tag,
            GET,
            "/api/task-runs/{run_id}/images/{image_id}",
            "taskRunImage",
        )
        .summary("A step image of a task run")
        .answer(200, IMAGE, "The image.")
        .errors(&[404]),
    ]
}

fn memory_experiences() -> Vec<Route> {
    let tag = "memory";
    vec![
        route(tag, GET, "/api/memory/experiences", "listExperiences")
            .summary("The experience library, filtered and paged")
            .query::<experiences::ListQuery>()
            .ok::<PageView<ExperienceView>>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT),
        route(tag, POST, "/api/memory/experiences", "createExperience")
            .summary("Write an experience by hand")
            .body::<experiences::ExperienceBody>()
            .json::<ExperienceView>(201, "Created.")
            .answer(400, Payload::Json(bad_input), BAD_INPUT),
        route(tag, GET, "/api/memory/experiences/{id}", "getExperience")
            .summary("One experience with its audit history")
            .ok::<ExperienceDetailView>()
            .errors(&[404]),
        route(
            tag,
            PUT,
            "/api/memory/experiences/{id}",
            "replaceExperience",
        )
        .summary("Replace an experience")
        .body::<experiences::ExperienceBody>()
        .ok::<ExperienceView>()
        .answer(400, Payload::Json(bad_input), BAD_INPUT)
        .errors(&[404]),
        route(
            tag,
            PATCH,
            "/api/memory/experiences/{id}",
            "patchExperience",
        )
        .summary("Change some fields of an experience")
        .body::<experiences::ExperienceBody>()
        .ok::<ExperienceView>()
        .answer(400, Payload::Json(bad_input), BAD_INPUT)
        .errors(&[404]),
        route(
            tag,
            DELETE,
            "/api/memory/experiences/{id}",
            "deleteExperience",
        )
        .summary("Delete an experience")
        .no_content("Deleted.")
        .errors(&[404]),
        route(
            tag,
            POST,
            "/api/memory/experiences/{id}/keep",
            "keepExperience",
        )
        .summary("Keep an experience the audit flagged")
        .ok::<ExperienceView>()
        .errors(&[404]),
    ]
}

fn memory_actions() -> Vec<Route> {
    let tag = "memory";
    vec![
        route(tag, GET, "/api/memory/actions", "listActions")
            .summary("The action library, filtered and paged")
            .query::<actions::ListQuery>()
            .ok::<PageView<ActionView>>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT),
        route(tag, POST, "/api/memory/actions", "createAction")
            .summary("Add an action (a library-mode task file)")
            .body_payload(Payload::Json(task_file))
            .json::<ActionView>(201, "Created.")
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[409]),
        route(tag, POST, "/api/memory/actions/validate", "validateAction")
            .summary("Validate an action without storing it")
            .body_payload(Payload::Json(task_file))
            .ok::<ValidationView>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT),
        route(tag, GET, "/api/memory/actions/{id}", "getAction")
            .summary("One action")
            .ok::<ActionView>()
            .errors(&[404]),
        route(tag, PUT, "/api/memory/actions/{id}", "replaceAction")
            .summary("Replace an action")
            .body_payload(Payload::Json(task_file))
            .ok::<ActionView>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[404, 409]),
        route(tag, DELETE, "/api/memory/actions/{id}", "deleteAction")
            .summary("Delete an action")
            .no_content("Deleted.")
            .errors(&[404]),
        route(tag, POST, "/api/memory/actions/{id}/try", "tryAction")
            .summary("Try an action on a device")
            .body::<actions::TryBody>()
            .ok::<ActionTryView>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT)
            .errors(&[404, 409]),
        route(tag, GET, "/api/memory/audit", "auditState")
            .summary("The audit: its schedule, the last and the running pass")
            .ok::<AuditStateView>(),
        route(tag, POST, "/api/memory/audit", "runAudit")
            .summary("Run the audit now")
            .json::<AuditRunView>(202, "Started.")
            .errors(&[409]),
        route(tag, PUT, "/api/memory/audit/schedule", "setAuditSchedule")
            .summary("When the audit runs by itself")
            .body::<audit::ScheduleBody>()
            .ok::<AuditScheduleView>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT),
        route(tag, GET, "/api/memory/audits", "listAudits")
            .summary("Past audit passes, paged")
            .query::<audit::ListQuery>()
            .ok::<PageView<AuditRunView>>()
            .answer(400, Payload::Json(bad_input), BAD_INPUT),
    ]
}

fn notification_routes() -> Vec<Route> {
    let tag = "notifications";
    vec![
        route(tag, GET, "/api/notifications", "listNotifications")
            .summary("The caller's notifications, newest first, with the unread count")
            .query::<notifications::ListQuery>()
            .ok::<NotificationList>()
            .errors(&[400]),
        route(
            tag,
            POST,
            "/api/notifications/read-all",
            "readAllNotifications",
        )
        .summary("Mark every notification read (for the caller)")
        .ok::<UnreadCount>(),
        route(
            tag,
            POST,
            "/api/notifications/{id}/read",
            "readNotification",
        )
        .summary("Mark one notification read (for the caller)")
        .ok::<UnreadCount>()
        .errors(&[404]),
        route(tag, GET, "/api/notifications/stream", "notificationStream")
            .summary("New notifications as SSE: `unread`, then `notification` events")
            .answer(
                200,
                Payload::Sse(notification_events),
                "Events until the server stops.",
            ),
    ]
}

fn secrets() -> Vec<Route> {
    let tag = "secrets";
    vec![
        route(tag, GET, "/api/secrets", "listSecrets")
            .summary("Every secret by name, with the tasks that use it (never a value)")
            .ok::<SecretList>(),
        route(tag, PUT, "/api/secrets/{name}", "setSecret")
            .summary("Set a secret's value")
            .body::<SetSecret>()
            .ok::<SecretView>()
            .errors(&[400]),
        route(tag, DELETE, "/api/secrets/{name}", "deleteSecret")
            .summary("Delete a secret no task uses")
            .no_content("Deleted.")
            .errors(&[404, 409]),
    ]
}

fn tokens() -> Vec<Route> {
    let tag = "tokens";
    vec![
        route(tag, GET, "/api/tokens", "listTokens")
            .summary("Every named token (revoked ones too) and the scopes there are")
            .ok::<TokenList>(),
        route(tag, POST, "/api/tokens", "createToken")
            .summary("Make a named token: its value is shown this once")
            .body::<CreateToken>()
            .json::<TokenCreated>(201, "Created.")
            .errors(&[400, 409]),
        route(tag, GET, "/api/tokens/{name}", "getToken")
            .summary("One token and its newest calls")
            .ok::<TokenDetail>()
            .errors(&[404]),
        route(tag, GET, "/api/tokens/{name}/calls", "listTokenCalls")
            .summary("A token's newest calls; `api-token` names the server's own API token")
            .ok::<TokenCalls>()
            .errors(&[404]),
        route(tag, DELETE, "/api/tokens/{name}", "revokeToken")
            .summary("Revoke a token: its next call is refused")
            .ok::<TokenDetail>()
            .errors(&[404]),
    ]
}

fn webhooks() -> Vec<Route> {
    let tag = "webhooks";
    vec![
        route(tag, GET, "/api/webhooks", "listWebhooks")
            .summary("Every webhook (never its secret) and the event kinds there are")
            .ok::<WebhookList>(),
        route(tag, POST, "/api/webhooks", "createWebhook")
            .summary("Make a webhook: its signing secret is shown this once")
            .body::<CreateWebhook>()
            .json::<WebhookSecret>(201, "Created.")
            .json::<FieldRefusal>(400, "A field refused: which, and why.")
            .errors(&[409]),
        route(tag, GET, "/api/webhooks/{id}", "getWebhook")
            .summary("One webhook (by id or name) with its newest delivery")
            .ok::<WebhookOne>()
            .errors(&[404]),
        route(tag, PATCH, "/api/webhooks/{id}", "changeWebhook")
            .summary("Change a webhook's name, URL, events or whether it is enabled")
            .body::<ChangeWebhook>()
            .ok::<WebhookOne>()
            .json::<FieldRefusal>(400, "A field refused: which, and why.")
            .errors(&[404, 409]),
        route(tag, DELETE, "/api/webhooks/{id}", "deleteWebhook")
            .summary("Delete a webhook and its deliveries")
            .no_content("Deleted.")
            .errors(&[404]),
        route(
            tag,
            POST,
            "/api/webhooks/{id}/rotate",
            "rotateWebhookSecret",
        )
        .summary("A new signing secret (the old one stops at once), shown this once")
        .ok::<WebhookSecret>()
        .errors(&[404]),
        route(tag, POST, "/api/webhooks/{id}/test", "testWebhook")
            .summary("Send a `ping` delivery")
            .json::<DeliveryQueued>(202, "Queued.")
            .errors(&[404, 409]),
        route(
            tag,
            GET,
            "/api/webhooks/{id}/deliveries",
            "listWebhookDeliveries",
        )
        .summary("A webhook's deliveries, newest first, a page at a time")
        .query::<DeliveryQuery>()
        .ok::<DeliveryPage>()
        .errors(&[400, 404]),
        route(
            tag,
            POST,
            "/api/webhooks/{id}/deliveries/{delivery}/redeliver",
            "redeliverWebhookDelivery",
        )
        .summary("Deliver a delivery's event again, as a new delivery")
        .json::<DeliveryQueued>(202, "Queued.")
        .errors(&[404, 409]),
    ]
}

fn mcp() -> Vec<Route> {
    let tag = "mcp";
    const MESSAGE: &str = "A JSON-RPC message of the Model Context Protocol (streamable HTTP).";
    vec![
        route(tag, POST, "/mcp/devices/{id}", "mcpDeviceMessage")
            .summary("Send an MCP message to the device's endpoint")
            .body_payload(Payload::Json(any_object))
            .answer(200, Payload::Json(any_object), MESSAGE)
            .answer(202, Payload::Empty, "A notification or response, accepted.")
            .errors(&[404]),
        route(tag, GET, "/mcp/devices/{id}", "mcpDeviceStream")
            .summary("The endpoint's stream of server messages for a session")
            .answer(200, Payload::Sse(any_object), MESSAGE)
            .errors(&[404]),
        route(tag, DELETE, "/mcp/devices/{id}", "mcpDeviceEndSession")
            .summary("End an MCP session")
            .answer(200, Payload::Empty, "The session ended.")
            .errors(&[404]),
    ]
}

/// The image types step images are served as.
const IMAGE: Payload = Payload::Binary(&["image/png", "image/jpeg", "image/webp", "image/gif"]);

/// Any JSON object.
fn any_object(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object"})
}

/// A task file (the task language; `deft task validate` and the validate routes check it).
fn task_file(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "description": "A task file in the task language (see the task language reference); \
                        the validate routes check one without storing it.",
    })
}

/// A schedule body (`kind` cron, every or once, with `misfire`, `busy`, `enabled`).
fn schedule_body(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "required": ["kind"],
        "properties": {
            "kind": {"enum": ["cron", "every", "once"]},
            "expr": {"type": "string", "description": "cron: five fields."},
            "tz": {"type": "string", "description": "cron: an IANA time zone (default UTC)."},
            "seconds": {"type": "integer", "minimum": 1, "description": "every: the period."},
            "at": {"type": "string", "description": "once: an RFC 3339 moment."},
            "misfire": {"enum": ["run_once", "skip"]},
            "busy": {"enum": ["wait", "skip"]},
            "enabled": {"type": "boolean"},
        },
    })
}

/// What a 400 of the task and memory routes says.
const BAD_INPUT: &str = "Bad input: `error` says what; a refused file, entry or query also \
                         lists every problem at its path (`errors`, `warnings`).";

/// A 400 of the task and memory routes: the validator's report with a summary as `error`
/// (a refused file, entry, schedule or query), or only the `error`.
fn bad_input(generator: &mut SchemaGenerator) -> Schema {
    let refused = refusal(generator);
    let error = generator.subschema_for::<ErrorBody>();
    json_schema!({"anyOf": [refused, error]})
}

/// A refused file or entry: the validator's report with a summary as `error` (one flat
/// object, as the handlers write it).
fn refusal(generator: &mut SchemaGenerator) -> Schema {
    let mut report = deft_app::task_language::Report::json_schema(generator);
    add_property(&mut report, "error", json!({"type": "string"}), true);
    report
}

/// `schema` (an object) with one more property.
fn add_property(schema: &mut Schema, name: &str, property: serde_json::Value, required: bool) {
    if let Some(object) = schema.as_object_mut() {
        if let Some(properties) = object
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut()
        {
            properties.insert(name.to_owned(), property);
        }
        if required
            && let Some(list) = object
                .entry("required")
                .or_insert_with(|| json!([]))
                .as_array_mut()
        {
            list.push(name.into());
        }
    }
}

/// `POST /api/devices/{id}/exec`'s body: one batch, or a list of batches.
fn exec_input(generator: &mut SchemaGenerator) -> Schema {
    let batch = generator.subschema_for::<deft_protocol::ExecBatch>();
    json_schema!({"anyOf": [batch, {"type": "array", "items": batch}]})
}

/// Its answer: the Results of one batch, or a list per batch.
fn exec_answer(generator: &mut SchemaGenerator) -> Schema {
    let results = generator.subschema_for::<Vec<deft_protocol::CommandResult>>();
    json_schema!({"anyOf": [results, {"type": "array", "items": results}]})
}

/// One version with its file.
fn version_detail(generator: &mut SchemaGenerator) -> Schema {
    let mut version = VersionView::json_schema(generator);
    let definition = json!({"description": "The task file of this version."});
    add_property(&mut version, "definition", definition, true);
    version
}

/// The diff of two versions: the changes, and which versions were compared.
fn version_diff(generator: &mut SchemaGenerator) -> Schema {
    let mut diff = deft_app::task_language::TaskDiff::json_schema(generator);
    add_property(&mut diff, "from", json!({"type": "integer"}), true);
    add_property(&mut diff, "to", json!({"type": "integer"}), true);
    diff
}

/// The notification stream's events: `unread`, then `notification` for each new one.
fn notification_events(generator: &mut SchemaGenerator) -> Schema {
    let unread = generator.subschema_for::<UnreadCount>();
    let arrived = generator.subschema_for::<NotificationArrived>();
    json_schema!({"anyOf": [unread, arrived]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_ids_are_unique_and_routes_declared_once() {
        let all = routes();
        let mut ids = std::collections::BTreeSet::new();
        let mut routes_seen = std::collections::BTreeSet::new();
        for r in &all {
            assert!(
                ids.insert(r.operation_id),
                "operation id {} twice",
                r.operation_id
            );
            assert!(
                routes_seen.insert((r.method.to_string(), r.path)),
                "{} {} declared twice",
                r.method,
                r.path
            );
            assert!(!r.summary.is_empty(), "{} has no summary", r.operation_id);
            assert!(!r.answers.is_empty(), "{} answers nothing", r.operation_id);
            assert!(
                TAGS.iter().any(|(t, _)| *t == r.tag),
                "unknown tag {}",
                r.tag
            );
        }
    }
}
