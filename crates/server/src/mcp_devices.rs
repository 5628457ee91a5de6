//! `/mcp/devices/{id}`: every device of the server as one MCP endpoint (deft-app's
//! `device_mcp`: the HostAgent's tools, then the selected application's, approvals, the busy
//! rule, a trace) over streamable HTTP. It sits behind the API's authentication — the API token,
//! a console session, or a named token with `devices:exec` — and the server's Host and Origin
//! checks. The server's routing table names the window that brings a tool asked for too early,
//! as `deft mcp device` does. One endpoint per device id, made at its first request and kept while the server
//! runs: the selected window survives a client's reconnect, and a device that reconnects is
//! served again. In a fleet, a device another server holds is served here too: each call goes
//! to its holder ([`deft_app::fleet::WithRelayed`]), the endpoint's selection and approvals
//! staying here.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_app::device_mcp::{DeviceEndpoint, DeviceMcp, EndpointConfig};
use deft_app::fleet::WithRelayed;
use deft_tools::Devices;
use parking_lot::Mutex;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tower_service::Service;

use crate::AppState;
use crate::api::ApiError;

/// One device's MCP service.
type DeviceService = StreamableHttpService<DeviceMcp, LocalSessionManager>;

/// A device's service and the devices it serves from (this server's, and the device relayed
/// when another server of the fleet holds it).
type Served = (DeviceService, Arc<WithRelayed>);

/// The endpoints made so far, by device id.
#[derive(Clone, Default)]
pub struct McpEndpoints {
    services: Arc<Mutex<HashMap<String, Served>>>,
}

impl McpEndpoints {
    /// The service of device `id` (made at its first request), and its devices.
    fn service(&self, app: &AppState, id: &str) -> Served {
        let mut services = self.services.lock();
        if let Some(s) = services.get(id) {
            return s.clone();
        }
        let relaying = Arc::new(WithRelayed::new(Arc::new(app.registry.clone())));
        let devices: Arc<dyn Devices> = relaying.clone();
        let config = EndpointConfig {
            trace_root: app
                .console
                .as_ref()
                .map(|c| c.app().data_dir().join("traces")),
            table: Some(app.routing_table.clone()),
            ..EndpointConfig::default()
        };
        let endpoint = DeviceEndpoint::new(devices, id, config);
        // Host and Origin are checked by the server's own layer, for every route.
        let mut http = StreamableHttpServerConfig::default()
            .disable_allowed_hosts()
            .disable_allowed_origins();
        http.cancellation_token = app.stopping.child_token();
        let service = StreamableHttpService::new(
            move || Ok(endpoint.handler()),
            LocalSessionManager::default().into(),
            http,
        );
        services.insert(id.to_owned(), (service.clone(), relaying.clone()));
        (service, relaying)
    }
}

/// `POST`, `GET` and `DELETE` on `/mcp/devices/{id}` (streamable HTTP's three: messages, the
/// server's stream, the session's end): the device's MCP endpoint — a device connected here, or
/// one another server of the fleet holds (relayed); 404 for a device no server holds.
pub async fn endpoint(
    State(app): State<AppState>,
    Path(id): Path<String>,
    request: Request,
) -> Response {
    let relayed = if app.registry.get(&id).is_some() {
        None
    } else {
        match held_elsewhere(&app, &id).await {
            Ok(Some(profile)) => Some(profile),
            Ok(None) => {
                let known: Vec<String> = app.registry.list().into_iter().map(|d| d.id).collect();
                return ApiError(
                    StatusCode::NOT_FOUND,
                    crate::texts::unknown_device(&id, &known),
                )
                .into_response();
            }
            Err(e) => return e.into_response(),
        }
    };
    // A message is read whole under the API's body limit (413 past it), as the API's routes are.
    let (parts, body) = request.into_parts();
    let body = match crate::api::read_body(Request::new(body), app.max_body).await {
        Ok(bytes) => bytes,
        Err(e) => return e.into_response(),
    };
    let request = Request::from_parts(parts, axum::body::Body::from(body));
    let (mut service, relaying) = app.mcp.service(&app, &id);
    if let (Some(profile), Some(console)) = (relayed, app.console.as_ref()) {
        relaying.relay(console.app(), &id, &profile);
    }
    match service.call(request).await {
        Ok(answer) => answer.into_response(),
        Err(never) => match never {},
    }
}

/// The profile of device `id` when another server of the fleet holds it (as that server lists
/// it).
async fn held_elsewhere(app: &AppState, id: &str) -> Result<Option<String>, ApiError> {
    let Some(console) = app.console.as_ref() else {
        return Ok(None);
    };
    let elsewhere = console.app().devices_elsewhere().await?;
    Ok(app
        .registry
        .fleet_details(elsewhere)
        .into_iter()
        .find(|d| d.id == id)
        .map(|d| d.profile))
}
