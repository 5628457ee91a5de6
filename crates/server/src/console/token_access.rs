//! What a named API token may reach: the token a request presents (looked up on every call,
//! so a revocation takes effect at once), the scopes a token can be given, and the one scope
//! each API route needs. A route no scope names (settings, secrets, tokens, the login) is the
//! admin's alone: a session or the server's API token, never a named token.

use axum::http::{Method, StatusCode};
use deft_store::Store;

use super::{now_ms, rfc3339, secrets, texts};
use crate::api::ApiError;

/// What every named token's value starts with (so a leaked one is recognisable in a scan).
pub const TOKEN_PREFIX: &str = "deft_";

/// A permission a named API token carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// List devices and watch their screens.
    DevicesRead,
    /// Execute commands on devices (`POST /api/devices/{id}/exec`).
    DevicesExec,
    /// Chat and designer runs, conversations, their images.
    Runs,
    /// Read tasks, schedules and task runs.
    TasksRead,
    /// Create, change and delete tasks and schedules.
    TasksWrite,
    /// Start and stop task runs.
    TasksRun,
    /// Read the experience and action libraries.
    MemoryRead,
    /// Change the libraries, run the audit.
    MemoryWrite,
    /// Read the notifications and mark them read (the token's own read state).
    Notifications,
}

impl Scope {
    /// Every scope, in the order lists show them.
    pub const ALL: [Scope; 9] = [
        Scope::DevicesRead,
        Scope::DevicesExec,
        Scope::Runs,
        Scope::TasksRead,
        Scope::TasksWrite,
        Scope::TasksRun,
        Scope::MemoryRead,
        Scope::MemoryWrite,
        Scope::Notifications,
    ];

    /// The scope's name as tokens and the API spell it.
    pub fn name(self) -> &'static str {
        match self {
            Scope::DevicesRead => "devices:read",
            Scope::DevicesExec => "devices:exec",
            Scope::Runs => "runs",
            Scope::TasksRead => "tasks:read",
            Scope::TasksWrite => "tasks:write",
            Scope::TasksRun => "tasks:run",
            Scope::MemoryRead => "memory:read",
            Scope::MemoryWrite => "memory:write",
            Scope::Notifications => "notifications",
        }
    }

    /// The scope named `name`.
    pub fn from_name(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Every scope's name.
    pub fn names() -> Vec<&'static str> {
        Scope::ALL.into_iter().map(Scope::name).collect()
    }
}

/// The scope a request to `path` (under `/api`, without the query) with `method` needs, or
/// `None` when no named token may make it.
pub fn required(method: &Method, path: &str) -> Option<Scope> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let reads = matches!(*method, Method::GET | Method::HEAD);
    let write_or = |read: Scope, write: Scope| if reads { read } else { write };
    match segments.as_slice() {
        ["devices", _, "exec"] | ["mcp", "devices", _] => Some(Scope::DevicesExec),
        ["devices", ..] | ["fleet"] if reads => Some(Scope::DevicesRead),
        ["agent", ..] | ["conversations", ..] | ["runs", ..] => Some(Scope::Runs),
        ["memory", "actions", _, "try"] => Some(Scope::Runs),
        ["memory", .., "validate"] => Some(Scope::MemoryRead),
        ["memory", ..] => Some(write_or(Scope::MemoryRead, Scope::MemoryWrite)),
        ["notifications", ..] => Some(Scope::Notifications),
        ["tasks", "validate"] => Some(Scope::TasksRead),
        ["tasks", _, "run"] | ["task-runs", _, "stop"] => Some(Scope::TasksRun),
        ["tasks", ..] => Some(write_or(Scope::TasksRead, Scope::TasksWrite)),
        ["task-runs", ..] if reads => Some(Scope::TasksRead),
        _ => None,
    }
}

/// A named token that authenticated a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedToken {
    /// The token's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it may reach.
    pub scopes: Vec<Scope>,
    /// When it was made, ms since the epoch (a notification older than its token is read).
    pub created_at_ms: i64,
}

/// The named token `given` is, when it is one and may call now: 401 for an unknown, revoked
/// or expired token.
pub async fn authenticate(store: &Store, given: &str) -> Result<NamedToken, ApiError> {
    let unauthorized = |text: String| ApiError(StatusCode::UNAUTHORIZED, text);
    if !given.starts_with(TOKEN_PREFIX) {
        return Err(unauthorized(crate::texts::UNAUTHORIZED.to_owned()));
    }
    let token = store
        .api_token_by_hash(&secrets::sha256_hex(given))
        .await?
        .ok_or_else(|| unauthorized(crate::texts::UNAUTHORIZED.to_owned()))?;
    if token.revoked_at_ms.is_some() {
        return Err(unauthorized(texts::token_revoked(&token.name)));
    }
    if let Some(at) = token.expires_at_ms.filter(|at| *at <= now_ms()) {
        return Err(unauthorized(texts::token_expired(
            &token.name,
            &rfc3339(at),
        )));
    }
    Ok(NamedToken {
        scopes: token
            .scopes
            .iter()
            .filter_map(|s| Scope::from_name(s))
            .collect(),
        id: token.id,
        name: token.name,
        created_at_ms: token.created_at_ms,
    })
}

/// Whether `token` may make a request that needs `needed` (`None`: an admin route): 403
/// naming what it lacks.
pub fn permit(token: &NamedToken, needed: Option<Scope>) -> Result<(), ApiError> {
    let forbidden = |text: String| ApiError(StatusCode::FORBIDDEN, text);
    match needed {
        None => Err(forbidden(texts::token_admin_only(&token.name))),
        Some(scope) if token.scopes.contains(&scope) => Ok(()),
        Some(scope) => Err(forbidden(texts::token_lacks_scope(
            &token.name,
            scope.name(),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for scope in Scope::ALL {
            assert_eq!(Scope::from_name(scope.name()), Some(scope));
        }
        assert_eq!(Scope::from_name("admin"), None);
    }

    #[test]
    fn each_route_needs_its_scope() {
        let cases: &[(Method, &str, Option<Scope>)] = &[
            (Method::GET, "/devices", Some(Scope::DevicesRead)),
            (Method::GET, "/fleet", Some(Scope::DevicesRead)),
            (Method::POST, "/fleet", None),
            (Method::GET, "/devices/pc1/live", Some(Scope::DevicesRead)),
            (Method::POST, "/devices/pc1/exec", Some(Scope::DevicesExec)),
            (Method::POST, "/agent/run", Some(Scope::Runs)),
            (Method::GET, "/conversations/c1", Some(Scope::Runs)),
            (Method::GET, "/runs/r1/images/i1", Some(Scope::Runs)),
            (Method::GET, "/tasks", Some(Scope::TasksRead)),
            (Method::POST, "/tasks/validate", Some(Scope::TasksRead)),
            (Method::POST, "/tasks", Some(Scope::TasksWrite)),
            (Method::PUT, "/tasks/t1", Some(Scope::TasksWrite)),
            (
                Method::DELETE,
                "/tasks/t1/schedules/s1",
                Some(Scope::TasksWrite),
            ),
            (Method::POST, "/tasks/t1/run", Some(Scope::TasksRun)),
            (Method::POST, "/task-runs/r1/stop", Some(Scope::TasksRun)),
            (Method::GET, "/task-runs/export", Some(Scope::TasksRead)),
            (Method::GET, "/memory/experiences", Some(Scope::MemoryRead)),
            (
                Method::POST,
                "/memory/actions/validate",
                Some(Scope::MemoryRead),
            ),
            (Method::POST, "/memory/audit", Some(Scope::MemoryWrite)),
            (Method::POST, "/memory/actions/a1/try", Some(Scope::Runs)),
            (
                Method::GET,
                "/notifications/stream",
                Some(Scope::Notifications),
            ),
            (
                Method::POST,
                "/notifications/read-all",
                Some(Scope::Notifications),
            ),
            (Method::GET, "/settings", None),
            (Method::PUT, "/settings/retention", None),
            (Method::GET, "/secrets", None),
            (Method::POST, "/tokens", None),
            (Method::GET, "/auth/me", None),
            (Method::POST, "/devices", None),
        ];
        for (method, path, want) in cases {
            assert_eq!(required(method, path), *want, "{method} {path}");
        }
    }

    #[test]
    fn a_token_reaches_what_its_scopes_name() {
        let t = NamedToken {
            id: "i".into(),
            name: "ci".into(),
            scopes: vec![Scope::TasksRead],
            created_at_ms: 0,
        };
        assert!(permit(&t, Some(Scope::TasksRead)).is_ok());
        let lacks = permit(&t, Some(Scope::TasksRun)).err().map(|e| (e.0, e.1));
        assert_eq!(
            lacks,
            Some((
                StatusCode::FORBIDDEN,
                texts::token_lacks_scope("ci", "tasks:run")
            ))
        );
        let admin = permit(&t, None).err().map(|e| e.0);
        assert_eq!(admin, Some(StatusCode::FORBIDDEN));
    }
}
