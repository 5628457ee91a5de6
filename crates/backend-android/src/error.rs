//! What a phone tool call can fail with: the phone (adb, the screen, a refusal) or the call
//! itself (an unknown id, a bad argument), each said as the model reads it.

use crate::phone::PhoneError;

/// A phone tool call's error.
#[derive(Debug, thiserror::Error)]
pub enum AndroidError {
    /// The phone or the adb server failed.
    #[error(transparent)]
    Phone(#[from] PhoneError),
    /// The call cannot be done as asked (the text says why and what to do).
    #[error("{0}")]
    Model(String),
}

impl From<deft_adb::AdbError> for AndroidError {
    fn from(e: deft_adb::AdbError) -> Self {
        AndroidError::Phone(PhoneError::Adb(e))
    }
}
