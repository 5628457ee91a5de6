//! The OpenAPI 3.1 document of `deft serve`, written from [`catalogue`] (every route, declared
//! once) and the JSON Schemas of the Rust types the handlers read and write (schemars, JSON
//! Schema 2020-12 as OpenAPI 3.1 uses it). Served at `GET /api/openapi.json`.
//!
//! The `openapi` integration test keeps it true: every route the router serves is catalogued
//! and every catalogued one served, real answers validate against their declared schemas, and
//! `openapi-spec-validator` accepts the document.

pub mod catalogue;
mod document;
pub mod route;

use std::sync::OnceLock;

use axum::Json;
use axum::response::{IntoResponse, Response};

pub use document::document;

/// Where the document is served, under `/api` (any caller the API lets in may read it).
pub const PATH_IN_API: &str = "/openapi.json";

/// `GET /api/openapi.json`: the document (built once per process).
pub async fn serve() -> Response {
    static DOCUMENT: OnceLock<serde_json::Value> = OnceLock::new();
    Json(DOCUMENT.get_or_init(document)).into_response()
}
