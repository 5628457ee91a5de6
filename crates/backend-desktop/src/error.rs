//! The tools' error: what went wrong in a desktop tool, its Display the model-facing text
//! (from [`crate::texts`] where the backend writes it).

use crate::texts;
use crate::x11::XError;

/// What can go wrong in a desktop tool; the text is written for the model.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// A refusal or validation failure with its model-facing text.
    #[error("{0}")]
    Model(String),
    /// A part of the desktop (X display, session or accessibility bus, registry) is unreachable.
    #[error("{}", texts::unreachable(what, cause))]
    Unreachable {
        /// Which part.
        what: String,
        /// Why, as the part said.
        cause: String,
    },
    /// An X request failed (the X error's own text).
    #[error("{}", .0.0)]
    X(#[from] XError),
    /// A blocking task of the tool failed (panicked or was cancelled).
    #[error("{0}")]
    Task(#[from] tokio::task::JoinError),
}

impl ToolError {
    /// A refusal or validation failure with its model-facing text.
    pub fn model(text: impl Into<String>) -> Self {
        ToolError::Model(text.into())
    }

    /// The desktop's `what` is unreachable because of `cause`.
    pub fn unreachable(what: impl Into<String>, cause: impl std::fmt::Display) -> Self {
        ToolError::Unreachable {
            what: what.into(),
            cause: cause.to_string(),
        }
    }
}

/// A tool step's result.
pub type ToolResult<T> = Result<T, ToolError>;
