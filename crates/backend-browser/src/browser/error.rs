//! What can go wrong in a browser operation, as the model reads it.

use crate::cdp::CdpError;
use crate::launch::LaunchError;
use crate::policy::UrlRefused;
use crate::texts;

/// What can go wrong in a browser operation; the text is written for the model.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    /// Starting or attaching failed.
    #[error("{}", texts::browser_unavailable(&.0.to_string()))]
    Launch(#[from] LaunchError),
    /// The CDP connection failed.
    #[error("{}", texts::browser_failed(&.0.to_string()))]
    Cdp(#[from] CdpError),
    /// The URL policy refused an address.
    #[error("{0}")]
    Refused(#[from] UrlRefused),
    /// A refusal or validation failure with its model-facing text.
    #[error("{0}")]
    Model(String),
}

impl BrowserError {
    pub(super) fn model(s: impl Into<String>) -> Self {
        BrowserError::Model(s.into())
    }
}

/// The result of a browser operation.
pub(crate) type Result<T, E = BrowserError> = std::result::Result<T, E>;
