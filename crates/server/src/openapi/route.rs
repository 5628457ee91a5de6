//! One catalogued HTTP route of `deft serve`: method, path, what it takes and what it answers,
//! written with a small builder so that a catalogue entry reads like the route's contract.

use axum::http::Method;
use schemars::{JsonSchema, Schema, SchemaGenerator};

/// Writes the schema of one type into a generator (a `$ref` for named types).
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// The schema of `T` as a reference into `#/components/schemas` (inline for lists, options
/// and other unnamed types).
pub fn schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// The schema of `T` written out, not referenced (a query's fields become parameters).
pub fn inline<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    T::json_schema(generator)
}

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone who reaches the listener (health, the login).
    Open,
    /// A console session, the server's API token, or a named token with the scope
    /// `token_access::required` names for the route (none: the admin's alone).
    Api,
    /// Any caller `Api` lets in, named tokens whatever their scopes.
    AnyCaller,
    /// A device presenting the device token (`/ws`).
    Device,
}

/// What a request or an answer carries.
#[derive(Clone, Copy)]
pub enum Payload {
    /// JSON of this schema.
    Json(SchemaFn),
    /// Server-sent events whose `data` lines are JSON of this schema.
    Sse(SchemaFn),
    /// An export by `format=`: RFC 4180 CSV text, or a JSON array of objects.
    Export,
    /// Raw bytes of these media types (an image).
    Binary(&'static [&'static str]),
    /// MJPEG: `multipart/x-mixed-replace` of JPEG frames.
    Mjpeg,
    /// Nothing.
    Empty,
}

/// One answer a route gives: its status, what it carries and when it comes.
#[derive(Clone, Copy)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// What it carries.
    pub payload: Payload,
    /// When it comes.
    pub description: &'static str,
}

/// One route: everything the OpenAPI document says of it.
#[derive(Clone)]
pub struct Route {
    /// The method.
    pub method: Method,
    /// The path, `{name}` for a parameter (as axum and OpenAPI both write it).
    pub path: &'static str,
    /// The OpenAPI `operationId` (lowerCamelCase, unique).
    pub operation_id: &'static str,
    /// One line on what it does.
    pub summary: &'static str,
    /// The group it is listed under.
    pub tag: &'static str,
    /// Who may call it.
    pub access: Access,
    /// The query string's fields (a struct whose fields are the parameters).
    pub query: Option<SchemaFn>,
    /// The request body.
    pub body: Option<Payload>,
    /// The answers of success, and of the failures that carry more than [`ErrorBody`].
    ///
    /// [`ErrorBody`]: crate::api::ErrorBody
    pub answers: Vec<Answer>,
    /// The failures answered with an [`ErrorBody`](crate::api::ErrorBody); 401 and 403 are
    /// added for every route that needs a caller.
    pub errors: Vec<u16>,
}

/// A route `method path` with operation id `id`, in group `tag`, behind the API's login.
pub fn route(tag: &'static str, method: Method, path: &'static str, id: &'static str) -> Route {
    Route {
        method,
        path,
        operation_id: id,
        summary: "",
        tag,
        access: Access::Api,
        query: None,
        body: None,
        answers: Vec::new(),
        errors: Vec::new(),
    }
}

impl Route {
    /// What it does, in one line.
    pub fn summary(mut self, summary: &'static str) -> Self {
        self.summary = summary;
        self
    }

    /// Who may call it (default [`Access::Api`]).
    pub fn access(mut self, access: Access) -> Self {
        self.access = access;
        self
    }

    /// Its query string: the fields of `T`.
    pub fn query<T: JsonSchema>(mut self) -> Self {
        self.query = Some(inline::<T>);
        self
    }

    /// A JSON body of type `T`.
    pub fn body<T: JsonSchema>(mut self) -> Self {
        self.body = Some(Payload::Json(schema::<T>));
        self
    }

    /// A body of this payload.
    pub fn body_payload(mut self, payload: Payload) -> Self {
        self.body = Some(payload);
        self
    }

    /// Answers `status` with JSON of type `T`.
    pub fn json<T: JsonSchema>(self, status: u16, description: &'static str) -> Self {
        self.answer(status, Payload::Json(schema::<T>), description)
    }

    /// Answers 200 with JSON of type `T`.
    pub fn ok<T: JsonSchema>(self) -> Self {
        self.json::<T>(200, "OK.")
    }

    /// Answers `status` with this payload.
    pub fn answer(mut self, status: u16, payload: Payload, description: &'static str) -> Self {
        self.answers.push(Answer {
            status,
            payload,
            description,
        });
        self
    }

    /// Answers 204 with nothing.
    pub fn no_content(self, description: &'static str) -> Self {
        self.answer(204, Payload::Empty, description)
    }

    /// Fails with these statuses, each with an error body.
    pub fn errors(mut self, statuses: &[u16]) -> Self {
        self.errors.extend_from_slice(statuses);
        self
    }

    /// The path's parameter names, in order.
    pub fn path_params(&self) -> Vec<&'static str> {
        self.path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .collect()
    }

    /// The path with every parameter filled in with `value` (to ask the router or the scope
    /// table about it).
    pub fn sample_path(&self, value: &str) -> String {
        self.path
            .split('/')
            .map(|s| if s.starts_with('{') { value } else { s })
            .collect::<Vec<_>>()
            .join("/")
    }
}
