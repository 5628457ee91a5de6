//! Hosting a builtin server for other MCP clients (`deft mcp NAME`): over stdio, or over
//! streamable HTTP behind a guard — Host and Origin checks against DNS rebinding
//! ([`crate::authority`], as `deft serve` makes them), no cross-site fetches, and a bearer
//! token, optional on loopback and required on any other address.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use serde_json::Value;
use tokio::net::TcpListener;

use crate::authority::{self, HostPolicy};
use crate::builtin::BuiltinFactory;

/// Why an HTTP host cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    /// Serving beyond loopback without a token.
    #[error(
        "refusing to serve MCP on {0} without a token: an address other than loopback needs --token (or DEFT_MCP_TOKEN)"
    )]
    TokenRequired(SocketAddr),
    /// The server could not be built or the listener failed.
    #[error("{0}")]
    Server(String),
}

#[derive(Clone)]
struct Guard {
    token: Option<Arc<str>>,
    hosts: HostPolicy,
}

/// Serves `factory` over streamable HTTP at `/mcp` on `listener` until `shutdown` resolves.
pub async fn serve_http(
    factory: &dyn BuiltinFactory,
    options: &Value,
    listener: TcpListener,
    token: Option<String>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), HostError> {
    let app = factory
        .http_service(options, unguarded_config())
        .map_err(HostError::Server)?;
    serve_guarded(app, listener, token, shutdown).await
}

/// The streamable HTTP configuration of a service [`serve_guarded`] serves: rmcp's own Host and
/// Origin checks off, because the guard makes them for every address kind.
pub fn unguarded_config() -> StreamableHttpServerConfig {
    StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
}

/// Serves `app` (an MCP service at `/mcp`, built with [`unguarded_config`]) on `listener`
/// behind the guard — Host and Origin checks, no cross-site fetches, the bearer `token`
/// (required beyond loopback) — until `shutdown` resolves.
pub async fn serve_guarded(
    app: axum::Router,
    listener: TcpListener,
    token: Option<String>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), HostError> {
    let addr = listener
        .local_addr()
        .map_err(|e| HostError::Server(e.to_string()))?;
    let token = token.filter(|t| !t.is_empty());
    if !addr.ip().is_loopback() && token.is_none() {
        return Err(HostError::TokenRequired(addr));
    }
    let guard = Guard {
        token: token.map(Arc::from),
        hosts: HostPolicy::new(addr, &[]),
    };
    let app = app.layer(axum::middleware::from_fn_with_state(guard, check_request));
    axum::serve(listener.tap_io(no_delay), app)
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|e| HostError::Server(e.to_string()))
}

/// Turns Nagle's algorithm off on an accepted connection (for `ListenerExt::tap_io`): small
/// frames — SSE events, JSON-RPC replies — go out at once instead of waiting for the peer's
/// delayed ACK (up to 40 ms on Linux).
pub fn no_delay(tcp: &mut tokio::net::TcpStream) {
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!(error = %e, "cannot set TCP_NODELAY");
    }
}

async fn check_request(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    if let Err((status, why)) = admit(&guard, request.headers()) {
        // The refused request's body is never read, so the connection cannot carry another
        // request: say so, or a keep-alive client sends its next request into a closed socket.
        return (status, [(header::CONNECTION, "close")], why).into_response();
    }
    next.run(request).await
}

/// Decides whether a request may reach the MCP service.
fn admit(guard: &Guard, headers: &HeaderMap) -> Result<(), (StatusCode, &'static str)> {
    authority::check(headers, &guard.hosts)
        .map_err(|refused| (refused.status(), refused.text()))?;
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok())
        && !matches!(site, "same-origin" | "none")
    {
        return Err((
            StatusCode::FORBIDDEN,
            "forbidden: cross-site requests are not allowed",
        ));
    }
    if let Some(expected) = &guard.token {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !constant_time_eq(given.as_bytes(), expected.as_bytes()) {
            return Err((
                StatusCode::UNAUTHORIZED,
                "unauthorized: a valid 'Authorization: Bearer <token>' is required",
            ));
        }
    }
    Ok(())
}

/// Compares two byte strings in time independent of where they differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = (a.len() ^ b.len()) as u8 as u32 | u32::from(a.len() != b.len());
    for (i, x) in a.iter().enumerate() {
        diff |= u32::from(x ^ b.get(i % b.len().max(1)).copied().unwrap_or(0));
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn loopback_guard_checks_host_origin_and_fetch_site() {
        let g = Guard {
            token: None,
            hosts: HostPolicy {
                loopback: true,
                allowed: Vec::new(),
            },
        };
        assert!(admit(&g, &headers(&[("host", "127.0.0.1:8010")])).is_ok());
        assert!(admit(&g, &headers(&[("host", "localhost")])).is_ok());
        assert!(admit(&g, &headers(&[("host", "[::1]:9")])).is_ok());
        assert_eq!(
            admit(&g, &headers(&[("host", "evil.example:8010")]))
                .unwrap_err()
                .0,
            StatusCode::FORBIDDEN
        );
        assert!(
            admit(
                &g,
                &headers(&[("host", "localhost:1"), ("origin", "http://localhost:3000")])
            )
            .is_ok()
        );
        assert!(
            admit(
                &g,
                &headers(&[("host", "localhost:1"), ("origin", "http://evil.example")])
            )
            .is_err()
        );
        assert!(
            admit(
                &g,
                &headers(&[("host", "localhost:1"), ("sec-fetch-site", "cross-site")])
            )
            .is_err()
        );
        assert!(admit(&g, &headers(&[])).is_err());
    }

    #[test]
    fn token_is_required_when_configured() {
        let g = Guard {
            token: Some(Arc::from("s3cret")),
            hosts: HostPolicy::default(),
        };
        assert_eq!(
            admit(&g, &headers(&[("host", "10.0.0.5:1")]))
                .unwrap_err()
                .0,
            StatusCode::UNAUTHORIZED
        );
        assert!(
            admit(
                &g,
                &headers(&[("host", "10.0.0.5:1"), ("authorization", "Bearer s3cret")])
            )
            .is_ok()
        );
        assert!(
            admit(
                &g,
                &headers(&[("host", "10.0.0.5:1"), ("authorization", "Bearer s3cre")])
            )
            .is_err()
        );
    }

    #[test]
    fn constant_time_eq_is_equality() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(!constant_time_eq(b"", b"a"));
        assert!(constant_time_eq(b"", b""));
    }
}
