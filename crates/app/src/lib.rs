//! deft's application core: the life of every run, whichever front end asked for it.
//!
//! It owns what happens between "start this run" and "this run ended and is stored": the
//! scheduler of `deft serve` ([`scheduler`]: one timer for every task schedule and job, each
//! fire claimed in the store so it runs once across servers). It talks to the store, the agent,
//! designer mode, the memory, the task runner and the trace; it knows no HTTP and prints
//! nothing — the server (`deft serve`) parses requests and renders views, the CLI parses
//! arguments and prints, and both call this crate.

#![forbid(unsafe_code)]

mod app;
pub mod event_writer;
pub mod run_log;
pub mod runtime;
pub mod scheduler;
pub mod task_runs;
pub mod texts;
pub mod title;

pub use app::{App, AppConfig, now_ms};
