//! What a program printed and how it ended: `run_shell`'s structured result, shared by the
//! run itself (`exec`), the limits that tell an out-of-memory failure (`limits`) and the guard
//! that hides deft's secrets from it (`guard`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::texts;

/// What `run_shell` returns as structured content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(description = texts::OUT_SHELL)]
pub struct ShellOutput {
    /// Exit status; `None` when killed by a signal or timed out.
    #[schemars(description = texts::OUT_EXIT_CODE)]
    pub exit_code: Option<i32>,
    /// Standard output, capped, decoded lossily.
    #[schemars(description = texts::OUT_STDOUT)]
    pub stdout: String,
    /// Standard error, capped, with a bracketed note when killed or timed out.
    #[schemars(description = texts::OUT_STDERR)]
    pub stderr: String,
    /// The time limit passed and the group was killed.
    #[schemars(description = texts::OUT_TIMED_OUT)]
    pub timed_out: bool,
    /// stdout or stderr was cut at [`OUTPUT_CAP`](crate::OUTPUT_CAP).
    #[schemars(description = texts::OUT_TRUNCATED)]
    pub truncated: bool,
}
