//! One MCP endpoint per device (`deft mcp device [ID]`, `/mcp/devices/{id}` on `deft serve`): an
//! outside MCP client (Claude Desktop, Cursor, a script) sees a whole device as deft's model
//! does — the HostAgent Computer's tools until an application window is selected, then that
//! application's tools too (its GUI tools and its API servers, such as a LibreOffice document's
//! `insert_table`), a name in both running on the application — and hears
//! `notifications/tools/list_changed` when the set changes (on its session, or on its
//! `subscriptions/listen` stream for a 2026-era client).
//!
//! Each call goes through the one recorded tool call ([`DeviceSession`]) into a trace folder a
//! person can open; holds the device for its time (a device busy with a run, a task or an exec
//! batch refuses it, as the exec API does); and, when sensitive, waits for a person's approval
//! ([`approval`]). The selected window belongs to the endpoint — the device as served by this
//! process — and is shared by the clients connected to it; one call runs at a time.
//!
//! The front ends bring the transport: the CLI serves a [`DeviceMcp`] over stdio or streamable
//! HTTP, the server mounts one endpoint per device under its API's authentication.

pub mod approval;
pub mod convert;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use deft_protocol::{DoneStatus, EventKind, ToolInfo, Usage};
use deft_tools::computer::LIST_TOOLS;
use deft_tools::dispatcher::list_tools;
use deft_tools::emitter::Emitter;
use deft_tools::session::{Call, DeviceSession};
use deft_tools::table::RoutingTable;
use deft_tools::{AppSelection, Device, Devices, ExecContext};
use deft_trace::{TraceMeta, TraceWriter};
use parking_lot::Mutex;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, SubscriptionFilter, Tool,
};
use rmcp::service::{RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use approval::ApprovalRule;

use crate::texts;

/// How an endpoint serves its device.
#[derive(Clone, Default)]
pub struct EndpointConfig {
    /// Which calls need a person's approval.
    pub approvals: ApprovalRule,
    /// Where the endpoint's trace folder goes (`None`: no trace).
    pub trace_root: Option<PathBuf>,
    /// The routing table the device routes by, when this process has it: names the application
    /// whose window brings a tool asked for before it is selected.
    pub table: Option<Arc<RoutingTable>>,
    /// Each call's batch deadline (`None`: the tool layer's default).
    pub deadline: Option<Duration>,
}

/// One device served to outside MCP clients: its selected application, its tool list, its
/// trace and who hears of changes. Make one per device and hand each MCP session a
/// [`DeviceEndpoint::handler`].
pub struct DeviceEndpoint {
    devices: Arc<dyn Devices>,
    device_id: String,
    config: EndpointConfig,
    /// Held for each list and call: one at a time, in order.
    state: tokio::sync::Mutex<State>,
    listeners: Mutex<Listeners>,
}

#[derive(Default)]
struct State {
    app: Option<AppSelection>,
    tools: Option<Arc<Listing>>,
    record: Option<Arc<Record>>,
}

/// The tools of the HostAgent and of the selected application's AppAgent Computer.
struct Listing {
    host: Vec<ToolInfo>,
    app: Vec<ToolInfo>,
}

impl Listing {
    /// The tool named `name` and whether it runs on the application (the application's wins).
    fn find(&self, name: &str) -> Option<(&ToolInfo, bool)> {
        let named = |t: &&ToolInfo| t.tool_name == name && t.tool_name != LIST_TOOLS;
        self.app
            .iter()
            .find(named)
            .map(|t| (t, true))
            .or_else(|| self.host.iter().find(named).map(|t| (t, false)))
    }

    /// Every tool once, by name (the application's where both have one; `list_tools` aside).
    fn tools(&self) -> Vec<Tool> {
        let mut by_name = std::collections::BTreeMap::new();
        for info in self.host.iter().chain(&self.app) {
            if info.tool_name != LIST_TOOLS {
                by_name.insert(info.tool_name.as_str(), info);
            }
        }
        by_name.into_values().map(convert::tool).collect()
    }
}

/// How often, at most, a call rewrites the trace's report (the report renders every call so
/// far; the folder's `trace.jsonl` has each call at once, and the endpoint's end writes the last
/// report).
const REPORT_EVERY: Duration = Duration::from_secs(2);

/// The endpoint's record of its calls: their event stream, into the trace folder when there is
/// one.
struct Record {
    emitter: Emitter,
    trace: Option<Arc<TraceWriter>>,
    reported: Mutex<Option<Instant>>,
}

impl Record {
    /// Flushes the trace's events and rewrites its report with the calls so far (a person can
    /// open it mid-session), the report at most every [`REPORT_EVERY`].
    fn refresh(&self) {
        let Some(trace) = &self.trace else { return };
        trace.flush();
        let mut reported = self.reported.lock();
        if reported.is_none_or(|at| at.elapsed() >= REPORT_EVERY) {
            trace.finish();
            *reported = Some(Instant::now());
        }
    }
}

/// Who hears that the tool list changed.
#[derive(Default)]
struct Listeners {
    /// Handshake-era sessions.
    sessions: Vec<Peer<RoleServer>>,
    /// 2026-era `subscriptions/listen` streams, by a number of ours.
    streams: Vec<(u64, SubscriptionSink)>,
    next_stream: u64,
}

impl DeviceEndpoint {
    /// The endpoint of device `device_id` of `devices` (looked up at each call: a remote
    /// device that reconnects is served again).
    pub fn new(
        devices: Arc<dyn Devices>,
        device_id: &str,
        config: EndpointConfig,
    ) -> Arc<DeviceEndpoint> {
        Arc::new(DeviceEndpoint {
            devices,
            device_id: device_id.to_owned(),
            config,
            state: tokio::sync::Mutex::new(State::default()),
            listeners: Mutex::new(Listeners::default()),
        })
    }

    /// The device's id.
    pub fn device_id(&self) -> &str {
        &self.device_id
    }

    /// An MCP server handler for one session (or one request) on this endpoint.
    pub fn handler(self: &Arc<Self>) -> DeviceMcp {
        DeviceMcp {
            endpoint: self.clone(),
            heard: AtomicBool::new(false),
        }
    }

    /// The trace folder, once a call made one.
    pub async fn trace_dir(&self) -> Option<PathBuf> {
        let state = self.state.lock().await;
        let trace = state.record.as_ref()?.trace.as_ref()?;
        Some(trace.dir().to_owned())
    }

    fn device(&self) -> Result<Device, String> {
        self.devices
            .get(&self.device_id)
            .ok_or_else(|| texts::mcp_device_gone(&self.device_id))
    }

    /// The tools now (learned once per selection).
    async fn listing(&self, state: &mut State) -> Result<Arc<Listing>, String> {
        if let Some(listing) = &state.tools {
            return Ok(listing.clone());
        }
        let device = self.device()?;
        let host_ctx = ExecContext::new(&device.id, &device.profile);
        let host = list_tools(device.dispatcher.as_ref(), &host_ctx).await?;
        let app = match &state.app {
            Some(selection) => {
                let mut ctx = host_ctx.clone();
                selection.apply(&mut ctx);
                list_tools(device.dispatcher.as_ref(), &ctx).await?
            }
            None => Vec::new(),
        };
        let listing = Arc::new(Listing { host, app });
        state.tools = Some(listing.clone());
        Ok(listing)
    }

    /// The tools an MCP client sees now.
    pub async fn tools(&self) -> Result<Vec<Tool>, String> {
        let mut state = self.state.lock().await;
        Ok(self.listing(&mut state).await?.tools())
    }

    /// Runs one `tools/call` (see the module docs).
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let mut state = self.state.lock().await;
        let device = match self.device() {
            Ok(d) => d,
            Err(text) => return convert::refusal(text).into(),
        };
        let listing = match self.listing(&mut state).await {
            Ok(l) => l,
            Err(text) => return convert::refusal(text).into(),
        };
        let name = request.name.to_string();
        let Some((info, on_app)) = listing.find(&name) else {
            return convert::refusal(self.unknown_tool(&name, &device, state.app.as_ref())).into();
        };
        let tool_type = info.tool_type;
        let args = request.arguments.clone().unwrap_or_default();
        let record = self.record(&mut state, context);
        let call_id = uuid::Uuid::new_v4().to_string();
        if let Some(reason) = self.config.approvals.reason(&name, &args) {
            match self
                .config
                .approvals
                .decide(&device.id, &reason, &request, context)
                .await
            {
                approval::Decision::Approved => {
                    record.emitter.emit(EventKind::Confirm {
                        call_id: call_id.clone(),
                        tool: name.clone(),
                        args: Value::Object(args.clone()),
                        reason,
                    });
                    record.emitter.emit(EventKind::Confirmed {
                        call_id: call_id.clone(),
                        approve: true,
                    });
                }
                approval::Decision::Refused(text) => {
                    record.emitter.emit(EventKind::Error {
                        message: text.clone(),
                    });
                    record.refresh();
                    return convert::refusal(text).into();
                }
                approval::Decision::Ask(input) => return input.into(),
            }
        }
        let Some(_held) = device.try_reserve() else {
            return convert::refusal(texts::device_busy(&device.id)).into();
        };
        let mut session = DeviceSession::new(&device, cancel_of(context), record.emitter.clone());
        if let Some(deadline) = self.config.deadline {
            session = session.with_deadline(deadline);
        }
        session.select(state.app.clone());
        let called = session
            .call(Call::new(Some(tool_type), &name, Value::Object(args), on_app).with_id(&call_id))
            .await;
        record.refresh();
        let selected = session.app().cloned();
        if selected != state.app {
            state.app = selected;
            state.tools = None;
            drop(state);
            self.tell_tools_changed().await;
        }
        convert::call_result(&called.result).into()
    }

    /// The endpoint's record, made at its first call.
    fn record(&self, state: &mut State, context: &RequestContext<RoleServer>) -> Arc<Record> {
        state
            .record
            .get_or_insert_with(|| Arc::new(self.start_record(context)))
            .clone()
    }

    fn start_record(&self, context: &RequestContext<RoleServer>) -> Record {
        let untraced = || Record {
            emitter: Emitter::discard(),
            trace: None,
            reported: Mutex::new(None),
        };
        let Some(root) = self.config.trace_root.as_ref() else {
            return untraced();
        };
        let client = context
            .client_info()
            .map(|c| format!("{} {}", c.name, c.version))
            .unwrap_or_else(|| texts::MCP_UNNAMED_CLIENT.to_owned());
        let id = format!("mcp-{}-{}", self.device_id, crate::local::new_run_id());
        let meta = TraceMeta {
            goal: texts::mcp_trace_goal(&self.device_id, &client),
            device: self.device_id.clone(),
            model: client,
        };
        match TraceWriter::create(root, &id, meta) {
            Ok(trace) => {
                let trace = Arc::new(trace);
                Record {
                    emitter: Emitter::new(vec![trace.clone()], trace.clone()),
                    trace: Some(trace),
                    reported: Mutex::new(None),
                }
            }
            Err(e) => {
                tracing::warn!(root = %root.display(), error = %e, "cannot create the MCP endpoint's trace folder; calls are not traced");
                untraced()
            }
        }
    }

    /// What a client reads when it calls a tool the device does not offer now.
    fn unknown_tool(&self, name: &str, device: &Device, app: Option<&AppSelection>) -> String {
        let roots = self
            .config
            .table
            .as_ref()
            .map(|t| t.app_roots_offering(&device.profile, name))
            .unwrap_or_default();
        texts::mcp_unknown_tool(name, &device.id, app.map(|a| a.root.as_str()), &roots)
    }

    /// Tells every listener that the tool list changed; forgets those that are gone.
    async fn tell_tools_changed(&self) {
        let (sessions, streams) = {
            let l = self.listeners.lock();
            (l.sessions.clone(), l.streams.clone())
        };
        let mut gone_sessions = Vec::new();
        for (i, peer) in sessions.iter().enumerate() {
            if peer.notify_tool_list_changed().await.is_err() {
                gone_sessions.push(i);
            }
        }
        let mut gone_streams = Vec::new();
        for (n, sink) in &streams {
            if sink.notify_tool_list_changed().await.is_err() {
                gone_streams.push(*n);
            }
        }
        let mut l = self.listeners.lock();
        let mut i = 0;
        l.sessions.retain(|_| {
            i += 1;
            !gone_sessions.contains(&(i - 1))
        });
        l.streams.retain(|(n, _)| !gone_streams.contains(n));
    }

    /// Adds a session's peer, forgetting those whose session has ended.
    fn add_session(&self, peer: Peer<RoleServer>) {
        let mut l = self.listeners.lock();
        l.sessions.retain(|p| !p.is_transport_closed());
        l.sessions.push(peer);
    }

    fn add_stream(&self, sink: SubscriptionSink) -> u64 {
        let mut l = self.listeners.lock();
        l.next_stream += 1;
        let n = l.next_stream;
        l.streams.push((n, sink));
        n
    }

    fn remove_stream(&self, n: u64) {
        self.listeners.lock().streams.retain(|(m, _)| *m != n);
    }
}

impl Drop for DeviceEndpoint {
    fn drop(&mut self) {
        if let Some(record) = self.state.get_mut().record.take() {
            // `done` writes the trace's last report.
            record.emitter.emit(EventKind::done(
                texts::MCP_ENDPOINT_CLOSED,
                Usage::default(),
                DoneStatus::Completed,
            ));
        }
    }
}

/// The request's cancellation (the client cancelled it, or its session ended).
fn cancel_of(context: &RequestContext<RoleServer>) -> CancellationToken {
    context.ct.clone()
}

/// An MCP server handler over a [`DeviceEndpoint`] (one per session; cheap).
pub struct DeviceMcp {
    endpoint: Arc<DeviceEndpoint>,
    /// Whether this session's peer is among the endpoint's listeners.
    heard: AtomicBool,
}

impl DeviceMcp {
    /// A handshake-era session hears of tool-list changes from its first request on.
    fn listen_on(&self, context: &RequestContext<RoleServer>) {
        if context.peer.peer_info().is_some() && !self.heard.swap(true, Ordering::AcqRel) {
            self.endpoint.add_session(context.peer.clone());
        }
    }
}

impl ServerHandler for DeviceMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new(
            texts::MCP_SERVER_NAME,
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(texts::mcp_instructions(&self.endpoint.device_id))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.listen_on(&context);
        self.endpoint
            .tools()
            .await
            .map(ListToolsResult::with_all_items)
            .map_err(|text| ErrorData::internal_error(text, None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.listen_on(&context);
        Ok(self.endpoint.call(request, &context).await)
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let n = self.endpoint.add_stream(context.sink().clone());
        context.cancelled().await;
        self.endpoint.remove_stream(n);
        Ok(())
    }
}
