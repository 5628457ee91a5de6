//! The model settings in `app_meta` (seed 001 §6): `agent_api_base`, `agent_model`,
//! `agent_api_key` (sealed, never returned), `agent_default_serial`, `agent_max_steps` (1–200,
//! default 40). Values missing from the store fall back to `deft serve`'s flags/environment.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_app::settings::{RunSettings, SettingsError, SettingsSource};
use deft_store::Store;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::{Console, ModelDefaults, secrets, texts};
use crate::AppState;
use crate::api::{ApiError, JsonBody};

/// `app_meta` key of the API base URL.
pub const KEY_API_BASE: &str = "agent_api_base";
/// `app_meta` key of the model name.
pub const KEY_MODEL: &str = "agent_model";
/// `app_meta` key of the sealed API key.
pub const KEY_API_KEY: &str = "agent_api_key";
/// `app_meta` key of the default device.
pub const KEY_DEFAULT_DEVICE: &str = "agent_default_serial";
/// `app_meta` key of the step limit.
pub const KEY_MAX_STEPS: &str = "agent_max_steps";
/// The API base when nothing is configured (seed 001 §2.1).
pub const DEFAULT_API_BASE: &str = "https://api.deepseek.com";
/// The step limit when nothing is configured.
pub const DEFAULT_MAX_STEPS: u32 = 40;

/// What `GET /api/settings` answers.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "Settings"))]
#[schemars(rename = "Settings")]
pub struct SettingsView {
    /// Base URL.
    pub api_base: String,
    /// Model name.
    pub model: String,
    /// Whether an API key is set.
    pub api_key_set: bool,
    /// The key, masked (`sk-…9f3a`).
    pub api_key_masked: String,
    /// Default device.
    pub default_device: String,
    /// Step limit.
    pub max_steps: u32,
}

/// `PUT /api/settings` body: any subset.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsUpdate {
    api_base: Option<String>,
    model: Option<String>,
    api_key: Option<String>,
    default_device: Option<String>,
    max_steps: Option<i64>,
}

/// The settings `deft serve` keeps: in its store's `app_meta` (the API key sealed), over the
/// defaults it was started with.
pub struct StoredSettings {
    store: Store,
    /// Seals the API key before it is stored.
    pub(super) secrets: secrets::SecretBox,
    defaults: ModelDefaults,
}

impl StoredSettings {
    /// The settings of `store`, sealed with `secrets`, over `defaults`.
    pub fn new(store: Store, secrets: secrets::SecretBox, defaults: ModelDefaults) -> Self {
        StoredSettings {
            store,
            secrets,
            defaults,
        }
    }

    /// The settings in force: stored values, else the configured defaults.
    async fn read(&self) -> Result<RunSettings, SettingsError> {
        let store = &self.store;
        let defaults = &self.defaults;
        let stored = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
        let api_base = stored(store.meta(KEY_API_BASE).await?)
            .or_else(|| defaults.api_base.clone())
            .unwrap_or_else(|| DEFAULT_API_BASE.to_owned());
        let model = stored(store.meta(KEY_MODEL).await?)
            .or_else(|| defaults.model.clone())
            .unwrap_or_default();
        let api_key = match stored(store.meta(KEY_API_KEY).await?) {
            Some(sealed) => Some(
                self.secrets
                    .open(&sealed)
                    .map_err(|e| SettingsError::Sealed(e.to_string()))?,
            ),
            None => defaults.api_key.clone(),
        };
        let default_device = stored(store.meta(KEY_DEFAULT_DEVICE).await?).unwrap_or_default();
        let max_steps = store
            .meta(KEY_MAX_STEPS)
            .await?
            .and_then(|s| s.trim().parse::<i64>().ok())
            .map_or(DEFAULT_MAX_STEPS, clamp_steps);
        Ok(RunSettings {
            api_base,
            model,
            api_key,
            default_device,
            max_steps,
        })
    }
}

impl SettingsSource for StoredSettings {
    fn run_settings(&self) -> BoxFuture<'_, Result<RunSettings, SettingsError>> {
        Box::pin(self.read())
    }
}

/// A 500 for settings that cannot be read (a store failure keeps its own answer).
pub fn settings_error(e: SettingsError) -> ApiError {
    match e {
        SettingsError::Store(e) => e.into(),
        SettingsError::Sealed(text) => ApiError(StatusCode::INTERNAL_SERVER_ERROR, text),
    }
}

impl Console {
    /// The settings in force: stored values, else the configured defaults.
    pub async fn settings(&self) -> Result<RunSettings, ApiError> {
        self.app().run_settings().await.map_err(settings_error)
    }
}

fn clamp_steps(n: i64) -> u32 {
    n.clamp(1, 200) as u32
}

fn view(e: &RunSettings) -> SettingsView {
    let key = e.api_key.as_deref().unwrap_or("");
    SettingsView {
        api_base: e.api_base.clone(),
        model: e.model.clone(),
        api_key_set: !key.is_empty(),
        api_key_masked: secrets::mask(key),
        default_device: e.default_device.clone(),
        max_steps: e.max_steps,
    }
}

/// `GET /api/settings`.
pub async fn get_settings(State(app): State<AppState>) -> Result<Response, ApiError> {
    let console = app.console()?;
    Ok(Json(view(&console.settings().await?)).into_response())
}

fn check_base(url: &str) -> Result<(), ApiError> {
    let ok = (url.starts_with("http://") || url.starts_with("https://"))
        && url.len() > "http://".len()
        && !url.contains(char::is_whitespace);
    if ok {
        Ok(())
    } else {
        Err(ApiError(
            StatusCode::BAD_REQUEST,
            texts::bad_setting(
                "api_base",
                &format!("'{url}' is not an http(s) URL such as https://api.openai.com/v1"),
            ),
        ))
    }
}

/// `PUT /api/settings`.
pub async fn put_settings(
    State(app): State<AppState>,
    JsonBody(update): JsonBody<SettingsUpdate>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let store = console.store();
    if let Some(base) = &update.api_base {
        let base = base.trim();
        check_base(base)?;
        store.set_meta(KEY_API_BASE, base).await?;
    }
    if let Some(model) = &update.model {
        store.set_meta(KEY_MODEL, model.trim()).await?;
    }
    if let Some(key) = &update.api_key {
        let key = key.trim();
        if key.is_empty() {
            store.delete_meta(KEY_API_KEY).await?;
        } else {
            let sealed = console
                .inner
                .settings
                .secrets
                .seal(key)
                .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
            store.set_meta(KEY_API_KEY, &sealed).await?;
        }
    }
    if let Some(device) = &update.default_device {
        let device = device.trim();
        if device.is_empty() {
            store.delete_meta(KEY_DEFAULT_DEVICE).await?;
        } else {
            store.set_meta(KEY_DEFAULT_DEVICE, device).await?;
        }
    }
    if let Some(n) = update.max_steps {
        store
            .set_meta(KEY_MAX_STEPS, &clamp_steps(n).to_string())
            .await?;
    }
    Ok(Json(view(&console.settings().await?)).into_response())
}
