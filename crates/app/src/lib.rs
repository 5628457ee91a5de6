//! deft's application core: the life of every run, whichever front end asked for it.
//!
//! It owns what happens between "start this run" and "this run ended and is stored", behind
//! one [`App`] handle (the store, the data folder, this server's id, the clock, the runs in
//! progress):
//! - [`agent_runs`]: chat and designer runs — the one run slot, starting, stopping, approving,
//!   storing a run's end, designer mode's draft; [`run_memory`]: what runs do with the memory
//!   (recall, distilling after `done`); [`run_images`]: where their step images go,
//!   [`step_images`]: how a watcher reads them (from the server that ran the run, in a fleet);
//! - [`action_tries`]: an action of the library tried on a device; [`device_exec`]: exec
//!   batches on a device; [`screen`]: a device's screenshot for live views; [`audit`]: the experience
//!   audit's passes and its daily job;
//! - [`settings`]: the model settings runs use and where they come from;
//! - [`task_language`] and [`libraries`]: what the front ends see of the task language and of
//!   the memory's libraries (the validator, schedule specs, the action check);
//! - [`scheduler`]: the one timer of `deft serve` for every task schedule and job, each fire
//!   claimed in the store so it runs once across servers;
//! - [`run_log`] and [`event_writer`]: a run's events stored first, in batches, then fanned out
//!   to any number of watchers, replayed from the store when the run is not in memory
//!   ([`follow`]);
//! - [`task_runs`]: the task runs in progress, their recording (trace, store, log) and the
//!   liveness sweep that ends the runs of a silent server; [`runtime`]: where runs execute;
//! - [`notices`]: the notifications runs and devices send the console's readers, decided in
//!   one place and stored, with a live feed of new ones;
//! - [`device_mcp`]: one MCP endpoint per device for outside clients (HostAgent, then the
//!   selected application's tools; approvals; the busy rule; a trace);
//! - [`webhooks`]: the events POSTed to the URLs people register — queued in the store as a
//!   run, a task run, an audit or a device produces them, signed, sent and retried by a
//!   background worker, never slowing what caused them;
//! - [`fleet`]: this server as a member of a fleet on one PostgreSQL — registered, beating,
//!   holding the leases of the devices connected to it (their epochs fence the runs on them);
//! - [`local`]: what a run on this machine without a server (`deft run`) takes part in: the
//!   memory of the data folder's store.
//!
//! It talks to the store, the task runner, the tools and the trace; it knows no HTTP and prints
//! nothing — the server (`deft serve`) parses requests and renders views, the CLI parses
//! arguments and prints, and both call this crate.

#![forbid(unsafe_code)]

pub mod action_tries;
pub mod agent_runs;
mod app;
pub mod audit;
pub mod device_exec;
pub mod device_mcp;
pub mod event_writer;
pub mod fleet;
pub mod follow;
pub mod libraries;
pub mod local;
pub mod notices;
pub mod run_images;
pub mod run_log;
pub mod run_memory;
pub mod runtime;
pub mod scheduler;
pub mod screen;
pub mod secrets;
pub mod settings;
pub mod step_images;
pub mod task_language;
pub mod task_runs;
pub mod texts;
pub mod title;
pub mod webhooks;

pub use app::{App, AppConfig, now_ms};
