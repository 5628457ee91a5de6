//! The web console's files, embedded at build time from `crates/server/console/` (see
//! `build.rs`): `/` and any non-API path a page may be reloaded at serve `index.html`;
//! `/assets/…` are content-hashed and cached for good. Every answer carries a strict
//! Content-Security-Policy, a second wall behind the escaping of model output.

use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/console_assets.rs"));
}

/// The policy: scripts, styles and connections from this origin only; images also as data/blob
/// URLs; nothing may frame the console.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const MISSING: &str = "<!doctype html><meta charset=utf-8><title>deft</title><p>The console's web bundle is not in this build. Run <code>scripts/web.sh build</code> and rebuild deft; the JSON API under <code>/api</code> works without it.</p>";

/// The embedded file at `path`.
pub fn file(path: &str) -> Option<&'static [u8]> {
    embedded::FILES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, bytes)| *bytes)
}

fn mime(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" | "webmanifest" => "application/json",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn with_headers(mut r: Response, cache: &'static str) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    r
}

/// Serves the console for any GET that no other route took.
pub async fn serve(method: Method, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let path = uri.path();
    if path.starts_with("/api/") || path == "/api" {
        return crate::api::ApiError(StatusCode::NOT_FOUND, format!("no API route {path}"))
            .into_response();
    }
    if let Some(bytes) = file(path).filter(|_| path != "/index.html") {
        let cache = if path.starts_with("/assets/") {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        };
        return with_headers(
            ([(header::CONTENT_TYPE, mime(path))], bytes).into_response(),
            cache,
        );
    }
    if path.starts_with("/assets/") {
        return with_headers(StatusCode::NOT_FOUND.into_response(), "no-cache");
    }
    let index = file("/index.html").unwrap_or(MISSING.as_bytes());
    with_headers(
        ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], index).into_response(),
        "no-cache",
    )
}
