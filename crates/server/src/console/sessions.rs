//! The admin account, logins and sessions.
//!
//! - First start: the admin `admin` is created from `DEFT_ADMIN_PASSWORD`, or a one-time setup
//!   token is made for the link `deft serve` prints (`POST /api/auth/setup`).
//! - A login sets the cookie `deft_session` (`HttpOnly; SameSite=Strict; Secure; Path=/`); the
//!   store keeps only its SHA-256, with a CSRF token and an expiry (7 days).
//! - Failed logins are limited per client address (5 per minute, then 429 with `Retry-After`).
//! - [`authorize`] decides every API request: the API token as Bearer, or a live session whose
//!   unsafe requests carry `X-CSRF-Token`.

use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use deft_store::{SessionRow, Store, StoreError};
use serde::{Deserialize, Serialize};

use super::token_access::{self, NamedToken};
use super::{Console, now_ms, passwords, secrets, texts};
use crate::AppState;
use crate::api::ApiError;
use crate::auth::{bearer, matches};

/// The session cookie's name.
pub const COOKIE: &str = "deft_session";
/// The CSRF header.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// The admin created from `DEFT_ADMIN_PASSWORD`.
pub const ADMIN: &str = "admin";
const SESSION_LIFETIME: Duration = Duration::from_secs(7 * 24 * 3600);
const FAILURES_PER_WINDOW: usize = 5;
const FAILURE_WINDOW: Duration = Duration::from_secs(60);

/// Preparing the admin account failed.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `DEFT_ADMIN_PASSWORD` is too short.
    #[error(
        "DEFT_ADMIN_PASSWORD is too short: {}",
        texts::short_password(passwords::MIN_PASSWORD_CHARS)
    )]
    ShortPassword,
    /// Hashing or randomness failed.
    #[error(transparent)]
    Secret(#[from] secrets::SecretError),
}

/// The first-start setup token (only while no admin exists).
#[derive(Default)]
pub struct Setup(Mutex<Option<String>>);

impl Setup {
    /// Creates the admin from `admin_password` when no user exists; otherwise, with no user and
    /// no password, makes a setup token.
    pub async fn prepare(store: &Store, admin_password: Option<&str>) -> Result<Setup, SetupError> {
        if store.user_count().await? > 0 {
            return Ok(Setup::default());
        }
        match admin_password {
            Some(pw) => {
                if pw.chars().count() < passwords::MIN_PASSWORD_CHARS {
                    return Err(SetupError::ShortPassword);
                }
                let pw = pw.to_owned();
                let hash = tokio::task::spawn_blocking(move || passwords::hash(&pw))
                    .await
                    .map_err(|e| secrets::SecretError::Random(e.to_string()))??;
                store.create_user(ADMIN, &hash).await?;
                Ok(Setup::default())
            }
            None => Ok(Setup(Mutex::new(Some(secrets::random_token()?)))),
        }
    }

    /// The token, while set-up is pending.
    pub fn token(&self) -> Option<String> {
        self.0.lock().clone()
    }

    /// Takes the token when `given` matches it (single use).
    fn redeem(&self, given: &str) -> bool {
        let mut slot = self.0.lock();
        if slot.as_deref().is_some_and(|t| matches(Some(given), t)) {
            *slot = None;
            true
        } else {
            false
        }
    }

    fn restore(&self, token: String) {
        *self.0.lock() = Some(token);
    }
}

/// Login attempts per client address, and how many password hashes run at once.
///
/// An attempt is counted when it is *reserved*, before its password is hashed, so a burst of
/// parallel attempts cannot all pass the check before any of them is recorded; a success
/// forgets the address's attempts.
pub struct LoginLimiter {
    attempts: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
    /// Argon2 hashes are deliberately costly: at most this many run at once, whoever asks.
    hashing: tokio::sync::Semaphore,
}

impl Default for LoginLimiter {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        LoginLimiter {
            attempts: Mutex::new(HashMap::new()),
            hashing: tokio::sync::Semaphore::new(cores.clamp(1, 4)),
        }
    }
}

impl LoginLimiter {
    /// Counts an attempt from `ip`; `Err(retry after)` when it has used up its attempts in the
    /// window (the attempt is then not counted).
    pub fn reserve(&self, ip: IpAddr) -> Result<(), Duration> {
        let mut map = self.attempts.lock();
        if map.len() > 10_000 && !map.contains_key(&ip) {
            map.clear();
        }
        let now = Instant::now();
        let q = map.entry(ip).or_default();
        while q.front().is_some_and(|t| now - *t > FAILURE_WINDOW) {
            q.pop_front();
        }
        if let Some(first) = q.front().filter(|_| q.len() >= FAILURES_PER_WINDOW) {
            return Err(FAILURE_WINDOW.saturating_sub(now - *first) + Duration::from_secs(1));
        }
        q.push_back(now);
        Ok(())
    }

    /// Forgets the attempts of `ip` after a success.
    pub fn succeeded(&self, ip: IpAddr) {
        self.attempts.lock().remove(&ip);
    }

    /// Checks `password` against `stored` off the runtime, waiting for a hashing slot first.
    pub async fn verify(&self, password: String, stored: String) -> bool {
        let Ok(_slot) = self.hashing.acquire().await else {
            return false;
        };
        tokio::task::spawn_blocking(move || passwords::verify(&password, &stored))
            .await
            .unwrap_or(false)
    }
}

/// Who is calling.
#[derive(Debug, Clone)]
pub enum Principal {
    /// The server's API token.
    ApiToken,
    /// A named API token (its scopes decide what it reaches).
    Token(NamedToken),
    /// A logged-in person.
    User {
        /// Username.
        username: String,
        /// The session's CSRF token.
        csrf_token: String,
    },
}

impl Principal {
    /// Who this is, as records name the maker of something: the username, the named token
    /// (`token NAME`), or `api token`.
    pub fn who(&self) -> String {
        match self {
            Principal::User { username, .. } => username.clone(),
            Principal::Token(t) => texts::token_maker(&t.name),
            Principal::ApiToken => texts::API_TOKEN_SETTER.to_owned(),
        }
    }
}

fn hash_session(token: &str) -> String {
    secrets::sha256_hex(token)
}

/// The value of cookie `name`.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k == name).then_some(v)
        })
}

/// Decides an API request: the API token, or a live session (with the CSRF header on unsafe
/// methods). `console` is `None` when the server runs without one (API token only).
pub async fn authorize(
    api_token: &str,
    console: Option<&Console>,
    method: &Method,
    headers: &HeaderMap,
) -> Result<Principal, ApiError> {
    let unauthorized = |text: &str| ApiError(StatusCode::UNAUTHORIZED, text.to_owned());
    if let Some(given) = bearer(headers) {
        // A caller that sends a token means the token: a wrong one is not a missing login.
        if matches(Some(given), api_token) {
            return Ok(Principal::ApiToken);
        }
        return match console {
            Some(console) => token_access::authenticate(console.store(), given)
                .await
                .map(Principal::Token),
            None => Err(unauthorized(crate::texts::UNAUTHORIZED)),
        };
    }
    let Some(console) = console else {
        return Err(unauthorized(crate::texts::UNAUTHORIZED));
    };
    let Some(token) = cookie(headers, COOKIE) else {
        return Err(unauthorized(texts::LOGIN_REQUIRED));
    };
    let store = console.store();
    let row = store
        .session(&hash_session(token))
        .await?
        .filter(|s| s.expires_at_ms > now_ms())
        .ok_or_else(|| unauthorized(texts::LOGIN_REQUIRED))?;
    let user = store
        .user_by_id(&row.user_id)
        .await?
        .ok_or_else(|| unauthorized(texts::LOGIN_REQUIRED))?;
    let safe = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if !safe {
        let given = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok());
        if !matches(given, &row.csrf_token) {
            return Err(ApiError(StatusCode::FORBIDDEN, texts::CSRF.to_owned()));
        }
    }
    Ok(Principal::User {
        username: user.username,
        csrf_token: row.csrf_token,
    })
}

fn client_ip(request_ip: Option<SocketAddr>) -> IpAddr {
    request_ip
        .map(|a| a.ip())
        .unwrap_or(IpAddr::from([127, 0, 0, 1]))
}

fn console_of(app: &AppState) -> Result<&Console, ApiError> {
    app.console.as_ref().ok_or_else(|| {
        ApiError(
            StatusCode::NOT_FOUND,
            "this server runs without the console".to_owned(),
        )
    })
}

/// `GET /api/auth/state`.
pub async fn state(State(app): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let console = console_of(&app)?;
    let logged_in = authorize(&app.api_token, Some(console), &Method::GET, &headers)
        .await
        .is_ok();
    Ok(Json(AuthState {
        setup_required: console.setup_token().is_some(),
        logged_in,
    })
    .into_response())
}

/// `GET /api/auth/state`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct AuthState {
    /// No admin exists yet: the console asks for the setup link's token.
    pub setup_required: bool,
    /// The request carried a valid session or token.
    pub logged_in: bool,
}

/// Who is calling (`GET /api/auth/me`; the login and the setup answer with a person's).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Caller {
    /// The admin's name; `null` for a token.
    pub username: Option<String>,
    /// A session's CSRF token, sent back as `X-CSRF-Token` on every change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csrf_token: Option<String>,
    /// True when a token called (the server's API token or a named one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_token: Option<bool>,
    /// The named token's name, when one called.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl Caller {
    /// A person with a session.
    fn person(username: String, csrf_token: String) -> Self {
        Caller {
            username: Some(username),
            csrf_token: Some(csrf_token),
            api_token: None,
            token: None,
        }
    }

    /// A token: the server's (`name` none) or a named one.
    fn token(name: Option<String>) -> Self {
        Caller {
            username: None,
            csrf_token: None,
            api_token: Some(true),
            token: name,
        }
    }
}

/// Login body.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct LoginBody {
    username: String,
    password: String,
}

async fn new_session(
    console: &Console,
    user_id: &str,
    username: &str,
) -> Result<Response, ApiError> {
    let token = secrets::random_token()
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let csrf_token = secrets::random_token()
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let now = now_ms();
    let store = console.store();
    store
        .create_session(&SessionRow {
            id_hash: hash_session(&token),
            user_id: user_id.to_owned(),
            csrf_token: csrf_token.clone(),
            created_at_ms: now,
            expires_at_ms: now + SESSION_LIFETIME.as_millis() as i64,
        })
        .await?;
    let _ = store.purge_sessions(now).await;
    let secure = if console.inner.cookie_secure {
        "; Secure"
    } else {
        ""
    };
    let cookie = format!(
        "{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}{secure}",
        SESSION_LIFETIME.as_secs()
    );
    let mut response = Json(Caller::person(username.to_owned(), csrf_token)).into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, v);
    }
    Ok(response)
}

/// `POST /api/auth/login`.
pub async fn login(State(app): State<AppState>, request: Request) -> Result<Response, ApiError> {
    let console = console_of(&app)?.clone();
    let ip = client_ip(
        request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0),
    );
    // The attempt counts from here, before any password is hashed.
    if let Err(wait) = console.inner.logins.reserve(ip) {
        let mut r = ApiError(
            StatusCode::TOO_MANY_REQUESTS,
            texts::too_many_logins(wait.as_secs()),
        )
        .into_response();
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(wait.as_secs()));
        return Ok(r);
    }
    let body: LoginBody = crate::api::json_body(request, app.max_body).await?;
    let user = console.store().user(body.username.trim()).await?;
    // Hash even for an unknown user, so timing does not tell which usernames exist.
    let stored = user
        .as_ref()
        .map(|u| u.password_hash.clone())
        .unwrap_or_else(|| DUMMY_HASH.to_owned());
    let ok = console.inner.logins.verify(body.password, stored).await;
    match user {
        Some(user) if ok => {
            console.inner.logins.succeeded(ip);
            new_session(&console, &user.id, &user.username).await
        }
        _ => Err(ApiError(
            StatusCode::UNAUTHORIZED,
            texts::WRONG_LOGIN.to_owned(),
        )),
    }
}

/// A well-formed hash no password matches in practice (used for unknown usernames).
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// Setup body.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct SetupBody {
    token: String,
    username: String,
    password: String,
}

/// `POST /api/auth/setup`: creates the admin with the one-time token.
pub async fn setup(State(app): State<AppState>, request: Request) -> Result<Response, ApiError> {
    let console = console_of(&app)?.clone();
    let body: SetupBody = crate::api::json_body(request, app.max_body).await?;
    if console.setup_token().is_none() {
        return Err(ApiError(
            StatusCode::BAD_REQUEST,
            texts::SETUP_DONE.to_owned(),
        ));
    }
    let username = body.username.trim().to_owned();
    if username.is_empty() || username.len() > 64 {
        return Err(ApiError(
            StatusCode::BAD_REQUEST,
            "the username must have 1 to 64 characters".to_owned(),
        ));
    }
    if body.password.chars().count() < passwords::MIN_PASSWORD_CHARS {
        return Err(ApiError(
            StatusCode::BAD_REQUEST,
            texts::short_password(passwords::MIN_PASSWORD_CHARS),
        ));
    }
    if !console.inner.setup.redeem(&body.token) {
        return Err(ApiError(
            StatusCode::FORBIDDEN,
            texts::SETUP_TOKEN.to_owned(),
        ));
    }
    let password = body.password;
    let hash = tokio::task::spawn_blocking(move || passwords::hash(&password))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    match console.store().create_user(&username, &hash).await {
        Ok(user) => new_session(&console, &user.id, &user.username).await,
        Err(e) => {
            console.inner.setup.restore(body.token);
            Err(e.into())
        }
    }
}

/// `POST /api/auth/logout`.
pub async fn logout(State(app): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let console = console_of(&app)?;
    if let Some(token) = cookie(&headers, COOKIE) {
        console.store().delete_session(&hash_session(token)).await?;
    }
    let mut r = StatusCode::NO_CONTENT.into_response();
    r.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static("deft_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"),
    );
    Ok(r)
}

/// `GET /api/auth/me`.
pub async fn me(State(app): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let principal = authorize(&app.api_token, app.console.as_ref(), &Method::GET, &headers).await?;
    Ok(match principal {
        Principal::ApiToken => Json(Caller::token(None)),
        Principal::Token(t) => Json(Caller::token(Some(t.name))),
        Principal::User {
            username,
            csrf_token,
        } => Json(Caller::person(username, csrf_token)),
    }
    .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; deft_session=xyz; b=2"),
        );
        assert_eq!(cookie(&h, COOKIE), Some("xyz"));
        assert_eq!(cookie(&h, "c"), None);
    }

    #[test]
    fn attempts_are_limited_per_address() {
        let l = LoginLimiter::default();
        let a = IpAddr::from([10, 0, 0, 1]);
        let b = IpAddr::from([10, 0, 0, 2]);
        for _ in 0..FAILURES_PER_WINDOW {
            assert!(l.reserve(a).is_ok());
        }
        let wait = l.reserve(a).expect_err("refused after five attempts");
        assert!(wait <= FAILURE_WINDOW + Duration::from_secs(1));
        assert!(l.reserve(b).is_ok(), "another address is not limited");
        l.succeeded(a);
        assert!(l.reserve(a).is_ok());
    }

    #[test]
    fn the_dummy_hash_parses_and_matches_nothing_typed() {
        assert!(!passwords::verify("", DUMMY_HASH));
        assert!(!passwords::verify("admin", DUMMY_HASH));
    }
}
