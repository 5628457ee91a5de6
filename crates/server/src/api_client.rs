//! The API from the caller's side: what `deft devices` and `deft exec --server` use.

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
            let message = serde_json::from_slice::<Value>(&bytes)
                .ok()
                .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_else(|| String::from_utf8_lossy(&bytes).into_owned());
            return Err(ApiClientError::Refused {
                status: status.as_u16(),
                message,
            });
        }
        serde_json::from_slice(&bytes).map_err(|e| ApiClientError::BadAnswer {
            url,
            detail: e.to_string(),
        })
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
