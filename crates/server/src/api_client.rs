//! The API from the caller's side: what `deft devices`, `deft exec --server` and
//! `deft task … --server` and `deft secret` use.

use serde_json::Value;

/// An API call failed.
#[derive(Debug, thiserror::Error)]
pub enum ApiClientError {
    /// The `--server` value is not an address.
    #[error(transparent)]
    Address(#[from] deft_link::address::AddressError),
    /// The server could not be reached.
    #[error("cannot reach the deft server at {url}: {source}")]
    Unreachable {
        /// The URL called.
        url: String,
        /// The cause.
        #[source]
        source: reqwest::Error,
    },
    /// The server answered with an error.
    #[error("the server answered {status}: {message}")]
    Refused {
        /// HTTP status.
        status: u16,
        /// The server's `error` text (or the body).
        message: String,
    },
    /// The answer is not the JSON expected.
    #[error("the server's answer from {url} is not valid JSON: {detail}")]
    BadAnswer {
        /// The URL called.
        url: String,
        /// What is wrong.
        detail: String,
    },
}

/// The run history's filters, sort and page (`GET /api/task-runs` and its export): each value
/// goes to the server as given, so the server says what a bad one should be.
#[derive(Debug, Clone, Default)]
pub struct RunQuery {
    /// A task's id or name.
    pub task: Option<String>,
    /// A status name.
    pub status: Option<String>,
    /// A trigger name.
    pub trigger: Option<String>,
    /// A device name.
    pub device: Option<String>,
    /// Started at or after (a date or an ISO-8601 moment).
    pub from: Option<String>,
    /// Started at or before (a date or an ISO-8601 moment).
    pub to: Option<String>,
    /// `started`, `duration` or `status`.
    pub sort: Option<String>,
    /// `desc` or `asc`.
    pub order: Option<String>,
    /// Where the page starts: the `next_cursor` of the page before.
    pub cursor: Option<String>,
    /// A page's size (the export takes every run).
    pub limit: Option<u32>,
}

impl RunQuery {
    /// The query string (without `?`), each value percent-encoded.
    pub fn encode(&self) -> String {
        let limit = self.limit.map(|l| l.to_string());
        [
            ("task", &self.task),
            ("status", &self.status),
            ("trigger", &self.trigger),
            ("device", &self.device),
            ("from", &self.from),
            ("to", &self.to),
            ("sort", &self.sort),
            ("order", &self.order),
            ("cursor", &self.cursor),
            ("limit", &limit),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some(format!("{key}={}", path_segment(value.as_deref()?))))
        .collect::<Vec<_>>()
        .join("&")
    }
}

/// A client of one server's API.
pub struct ApiClient {
    base: String,
    token: String,
    http: reqwest::Client,
}

impl ApiClient {
    /// A client for the server at `server` (`http(s)://` or `ws(s)://`) with `api_token`.
    pub fn new(server: &str, api_token: &str) -> Result<Self, ApiClientError> {
        let http = reqwest::Client::builder()
            .connect_timeout(std::time::Duration::from_secs(10))
            .build()
            .map_err(|source| ApiClientError::Unreachable {
                url: server.to_owned(),
                source,
            })?;
        Ok(ApiClient {
            base: deft_link::address::api_base(server)?,
            token: api_token.to_owned(),
            http,
        })
    }

    /// `GET /api/devices`.
    pub async fn devices(&self) -> Result<Value, ApiClientError> {
        let url = format!("{}/api/devices", self.base);
        let request = self.http.get(&url).bearer_auth(&self.token);
        self.send(url, request).await
    }

    /// `POST /api/devices/{id}/exec` with the batch text `body`.
    pub async fn exec(
        &self,
        device: &str,
        body: String,
        deadline_secs: Option<f64>,
    ) -> Result<Value, ApiClientError> {
        let mut url = format!("{}/api/devices/{}/exec", self.base, path_segment(device));
        if let Some(d) = deadline_secs {
            url.push_str(&format!("?deadline_secs={d}"));
        }
        let request = self
            .http
            .post(&url)
            .bearer_auth(&self.token)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        self.send(url, request).await
    }

    /// `GET /api/tasks` (the first 500).
    pub async fn tasks(&self) -> Result<Value, ApiClientError> {
        self.get("/api/tasks?limit=500").await
    }

    /// `GET /api/tasks/{id}` (an id or a name).
    pub async fn task(&self, id_or_name: &str) -> Result<Value, ApiClientError> {
        self.get(&format!("/api/tasks/{}", path_segment(id_or_name)))
            .await
    }

    /// `POST /api/tasks/{id}/run` with `variables` (trigger `manual`: a person asked).
    pub async fn run_task(
        &self,
        id_or_name: &str,
        variables: &std::collections::BTreeMap<String, String>,
    ) -> Result<Value, ApiClientError> {
        let body = serde_json::json!({"variables": variables, "trigger": "manual"});
        self.post(
            &format!("/api/tasks/{}/run", path_segment(id_or_name)),
            &body,
        )
        .await
    }

    /// `GET /api/tasks/export?{key}={value}`: the export document of one task (`task`), a
    /// folder (`folder`) or every task (`all`, `true`).
    pub async fn export_tasks(&self, key: &str, value: &str) -> Result<Value, ApiClientError> {
        self.get(&format!("/api/tasks/export?{key}={}", path_segment(value)))
            .await
    }

    /// `POST /api/tasks/import?dry_run=&on_clash=` with an export document: the import's report.
    pub async fn import_tasks(
        &self,
        document: &Value,
        dry_run: bool,
        on_clash: &str,
    ) -> Result<Value, ApiClientError> {
        let path = format!(
            "/api/tasks/import?dry_run={dry_run}&on_clash={}",
            path_segment(on_clash)
        );
        self.post(&path, document).await
    }

    /// `POST /api/task-runs/{id}/stop`.
    pub async fn stop_task_run(&self, run_id: &str) -> Result<Value, ApiClientError> {
        self.post(
            &format!("/api/task-runs/{}/stop", path_segment(run_id)),
            &serde_json::json!({}),
        )
        .await
    }

    /// `GET /api/task-runs?…`: a page of the run history (docs/console-api.md "The run
    /// history").
    pub async fn task_runs(&self, query: &RunQuery) -> Result<Value, ApiClientError> {
        self.get(&format!("/api/task-runs?{}", query.encode()))
            .await
    }

    /// `GET /api/task-runs/export?format=…&…`: every run the query's filters select, as the
    /// server streams it (read it with [`reqwest::Response::chunk`]); a refusal is the server's
    /// 400 text.
    pub async fn task_runs_export(
        &self,
        format: &str,
        query: &RunQuery,
    ) -> Result<reqwest::Response, ApiClientError> {
        let url = format!(
            "{}/api/task-runs/export?format={}&{}",
            self.base,
            path_segment(format),
            query.encode()
        );
        self.stream(url).await
    }

    /// `GET /api/task-runs/{id}/events`: the run's events from the start, then live, until
    /// `done`.
    pub async fn task_events(&self, run_id: &str) -> Result<EventStream, ApiClientError> {
        let url = format!(
            "{}/api/task-runs/{}/events",
            self.base,
            path_segment(run_id)
        );
        let response = self.stream(url.clone()).await?;
        Ok(EventStream {
            url,
            response,
            buf: Vec::new(),
        })
    }

    /// A GET whose answer is read as it comes; a status other than 2xx is the server's text.
    async fn stream(&self, url: String) -> Result<reqwest::Response, ApiClientError> {
        let response = self
            .http
            .get(&url)
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(|source| ApiClientError::Unreachable { url, source })?;
        if !response.status().is_success() {
            let status = response.status().as_u16();
            let bytes = response.bytes().await.unwrap_or_default();
            return Err(ApiClientError::Refused {
                status,
                message: error_text(&bytes),
            });
        }
        Ok(response)
    }

    /// `GET /api/secrets`: the secrets by name (never a value).
    pub async fn secrets(&self) -> Result<Value, ApiClientError> {
        self.get("/api/secrets").await
    }

    /// `PUT /api/secrets/{name}`: creates or replaces the secret.
    pub async fn set_secret(&self, name: &str, value: &str) -> Result<Value, ApiClientError> {
        let url = format!("{}/api/secrets/{}", self.base, path_segment(name));
        let body = serde_json::json!({ "value": value });
        let request = self.http.put(&url).bearer_auth(&self.token).json(&body);
        self.send(url, request).await
    }

    /// `DELETE /api/secrets/{name}`.
    pub async fn delete_secret(&self, name: &str) -> Result<(), ApiClientError> {
        let url = format!("{}/api/secrets/{}", self.base, path_segment(name));
        let request = self.http.delete(&url).bearer_auth(&self.token);
        self.send(url, request).await.map(drop)
    }

    /// `GET /api/tokens`: the named API tokens (never a value) and the scopes there are.
    pub async fn tokens(&self) -> Result<Value, ApiClientError> {
        self.get("/api/tokens").await
    }

    /// `POST /api/tokens`: makes a token; the answer carries its value, shown this once.
    pub async fn create_token(
        &self,
        name: &str,
        scopes: &[String],
        expires_in_days: Option<u32>,
    ) -> Result<Value, ApiClientError> {
        let body = serde_json::json!({
            "name": name,
            "scopes": scopes,
            "expires_in_days": expires_in_days,
        });
        self.post("/api/tokens", &body).await
    }

    /// `GET /api/tokens/{name}`: the token and its newest calls.
    pub async fn token(&self, name: &str) -> Result<Value, ApiClientError> {
        self.get(&format!("/api/tokens/{}", path_segment(name)))
            .await
    }

    /// `GET /api/tokens/{name}/calls`: a token's newest calls (`api-token`: the server's own).
    pub async fn token_calls(&self, name: &str) -> Result<Value, ApiClientError> {
        self.get(&format!("/api/tokens/{}/calls", path_segment(name)))
            .await
    }

    /// `DELETE /api/tokens/{name}`: revokes it.
    pub async fn revoke_token(&self, name: &str) -> Result<Value, ApiClientError> {
        let url = format!("{}/api/tokens/{}", self.base, path_segment(name));
        let request = self.http.delete(&url).bearer_auth(&self.token);
        self.send(url, request).await
    }

    /// `GET /api/webhooks`: the webhooks (never a secret) and the events there are.
    pub async fn webhooks(&self) -> Result<Value, ApiClientError> {
        self.get("/api/webhooks").await
    }

    /// `POST /api/webhooks`: makes a webhook; the answer carries its secret, shown this once.
    pub async fn create_webhook(
        &self,
        name: &str,
        url: &str,
        events: &[String],
    ) -> Result<Value, ApiClientError> {
        let body = serde_json::json!({"name": name, "url": url, "events": events});
        self.post("/api/webhooks", &body).await
    }

    /// `POST /api/webhooks/{name}/test`: queues a ping; the answer is its delivery.
    pub async fn test_webhook(&self, name: &str) -> Result<Value, ApiClientError> {
        let path = format!("/api/webhooks/{}/test", path_segment(name));
        self.post(&path, &serde_json::json!({})).await
    }

    /// `GET /api/webhooks/{name}/deliveries?limit=`: its newest deliveries.
    pub async fn webhook_deliveries(
        &self,
        name: &str,
        limit: u32,
    ) -> Result<Value, ApiClientError> {
        self.get(&format!(
            "/api/webhooks/{}/deliveries?limit={limit}",
            path_segment(name)
        ))
        .await
    }

    /// `DELETE /api/webhooks/{name}`: deletes it and its deliveries.
    pub async fn delete_webhook(&self, name: &str) -> Result<(), ApiClientError> {
        let url = format!("{}/api/webhooks/{}", self.base, path_segment(name));
        let request = self.http.delete(&url).bearer_auth(&self.token);
        self.send(url, request).await.map(drop)
    }

    /// `GET /api/fleet`: the fleet's servers and the devices each holds.
    pub async fn fleet(&self) -> Result<Value, ApiClientError> {
        self.get("/api/fleet").await
    }

    async fn get(&self, path: &str) -> Result<Value, ApiClientError> {
        let url = format!("{}{path}", self.base);
        let request = self.http.get(&url).bearer_auth(&self.token);
        self.send(url, request).await
    }

    async fn post(&self, path: &str, body: &Value) -> Result<Value, ApiClientError> {
        let url = format!("{}{path}", self.base);
        let request = self.http.post(&url).bearer_auth(&self.token).json(body);
        self.send(url, request).await
    }

    async fn send(
        &self,
        url: String,
        request: reqwest::RequestBuilder,
    ) -> Result<Value, ApiClientError> {
        let response = request
            .send()
            .await
            .map_err(|source| ApiClientError::Unreachable {
                url: url.clone(),
                source,
            })?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|source| ApiClientError::Unreachable {
                url: url.clone(),
                source,
            })?;
        if !status.is_success() {
            return Err(ApiClientError::Refused {
                status: status.as_u16(),
                message: error_text(&bytes),
            });
        }
        if bytes.is_empty() {
            // 204 No Content.
            return Ok(Value::Null);
        }
        serde_json::from_slice(&bytes).map_err(|e| ApiClientError::BadAnswer {
            url,
            detail: e.to_string(),
        })
    }
}

/// The server's `error` text, with the paths of a refused task (`errors`), else the body.
fn error_text(bytes: &[u8]) -> String {
    let Ok(v) = serde_json::from_slice::<Value>(bytes) else {
        return String::from_utf8_lossy(bytes).into_owned();
    };
    let mut text = v
        .get("error")
        .and_then(Value::as_str)
        .map_or_else(|| v.to_string(), str::to_owned);
    let issues = v.get("errors").and_then(Value::as_array);
    for issue in issues.into_iter().flatten().skip(1) {
        let path = issue.get("path").and_then(Value::as_str).unwrap_or("");
        let message = issue.get("message").and_then(Value::as_str).unwrap_or("");
        text.push_str(&format!("\n  {path}: {message}"));
    }
    text
}

/// A run's Server-Sent Events, read as they come.
pub struct EventStream {
    url: String,
    response: reqwest::Response,
    buf: Vec<u8>,
}

impl EventStream {
    /// The next event; `None` when the stream ended (after `done`). Keep-alive comments and
    /// frames that are not events are passed over.
    pub async fn next(&mut self) -> Result<Option<deft_protocol::AgentEvent>, ApiClientError> {
        loop {
            if let Some(end) = self.buf.windows(2).position(|w| w == b"\n\n") {
                let frame: Vec<u8> = self.buf.drain(..end + 2).collect();
                let text = String::from_utf8_lossy(&frame);
                let data = text.lines().find_map(|l| l.strip_prefix("data: "));
                if let Some(event) = data.and_then(|d| serde_json::from_str(d).ok()) {
                    return Ok(Some(event));
                }
                continue;
            }
            let chunk =
                self.response
                    .chunk()
                    .await
                    .map_err(|source| ApiClientError::Unreachable {
                        url: self.url.clone(),
                        source,
                    })?;
            match chunk {
                Some(bytes) => self.buf.extend_from_slice(&bytes),
                None => return Ok(None),
            }
        }
    }
}

fn path_segment(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A device of a deft server as a [`deft_tools::Dispatcher`]: each batch is one
/// `POST /api/devices/{id}/exec` (the server holds the device busy for the batch). Stop drops the
/// request, and the server drops the batch with it. `deft dataflow --devices` runs tasks on remote
/// clients through it.
pub struct ApiDispatcher {
    client: std::sync::Arc<ApiClient>,
    device: String,
}

impl ApiDispatcher {
    /// The server's device `device`.
    pub fn new(client: std::sync::Arc<ApiClient>, device: &str) -> Self {
        ApiDispatcher {
            client,
            device: device.to_owned(),
        }
    }

    async fn run(
        &self,
        ctx: &deft_tools::ExecContext,
        commands: &[deft_protocol::Command],
    ) -> Result<Vec<deft_protocol::CommandResult>, String> {
        let batch = deft_protocol::ExecBatch {
            profile: None,
            agent: ctx.agent.clone(),
            process: ctx.process.clone(),
            root: ctx.root.clone(),
            early_exit: ctx.early_exit,
            commands: commands.to_vec(),
        };
        let body = serde_json::to_string(&batch).map_err(|e| e.to_string())?;
        let answer = self
            .client
            .exec(&self.device, body, Some(ctx.deadline.as_secs_f64()))
            .await
            .map_err(|e| e.to_string())?;
        let results: Vec<deft_protocol::CommandResult> =
            serde_json::from_value(answer).map_err(|e| e.to_string())?;
        if results.len() != commands.len() {
            return Err(format!(
                "the server answered {} results to {} commands",
                results.len(),
                commands.len()
            ));
        }
        Ok(results)
    }
}

impl deft_tools::Dispatcher for ApiDispatcher {
    fn execute<'a>(
        &'a self,
        ctx: &'a deft_tools::ExecContext,
        mut commands: Vec<deft_protocol::Command>,
    ) -> futures::future::BoxFuture<'a, Vec<deft_protocol::CommandResult>> {
        Box::pin(async move {
            deft_tools::dispatcher::fill_call_ids(&mut commands);
            let answer = tokio::select! {
                r = self.run(ctx, &commands) => r,
                () = ctx.cancel.cancelled() => Err(deft_tools::texts::STOPPED.to_owned()),
            };
            match answer {
                Ok(results) => results,
                Err(e) => commands
                    .iter()
                    .map(|c| deft_protocol::CommandResult::failure(&c.call_id, e.clone(), None))
                    .collect(),
            }
        })
    }
}
