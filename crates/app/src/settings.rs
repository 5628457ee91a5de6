//! The model settings runs use, and where they come from: `deft serve` keeps them in its store
//! (the API key sealed) over the defaults it was started with; a test or a one-off run gives
//! them as they are ([`FixedSettings`]).

use deft_store::StoreError;
use futures::future::BoxFuture;

/// The model settings a run uses (the API key in clear: never serialised).
#[derive(Clone)]
pub struct RunSettings {
    /// OpenAI-compatible base URL.
    pub api_base: String,
    /// Model name ("" when unset).
    pub model: String,
    /// API key.
    pub api_key: Option<String>,
    /// The device of a run that names none ("" when unset).
    pub default_device: String,
    /// Step limit.
    pub max_steps: u32,
}

/// The settings could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A sealed value does not open (the key file was replaced or damaged); the text says
    /// what to do.
    #[error("{0}")]
    Sealed(String),
}

/// Where the settings in force come from.
pub trait SettingsSource: Send + Sync {
    /// The settings in force now.
    fn run_settings(&self) -> BoxFuture<'_, Result<RunSettings, SettingsError>>;
}

/// Settings given as they are.
pub struct FixedSettings(pub RunSettings);

impl SettingsSource for FixedSettings {
    fn run_settings(&self) -> BoxFuture<'_, Result<RunSettings, SettingsError>> {
        let settings = self.0.clone();
        Box::pin(async move { Ok(settings) })
    }
}
