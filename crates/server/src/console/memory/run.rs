//! What a console run does with the memory: its session is the agent's extension (recall at
//! the start, the `memory` cards, `run_action`); after `done` went out — never before, so it
//! never delays it — the run's notes are stored (what was recalled, then what distilling saved,
//! merged or dropped), and a page that asks about the run sees `distilling` until they are.

use std::sync::Arc;

use deft_agent::RunOutcome;
use deft_agent::llm::LlmClient;
use deft_memory::MemorySession;
use deft_protocol::memory::MemoryNote;
use tokio_util::sync::CancellationToken;

use crate::console::Console;

/// Marks the run as distilling when its outcome will be distilled. Call it before `done` is
/// released, so a page that sees `done` and asks finds the mark.
pub fn mark_before_done(
    console: &Console,
    run_id: &str,
    session: Option<&MemorySession>,
    outcome: &RunOutcome,
) {
    if session.is_some_and(|s| s.will_distil(outcome)) {
        console.memory().set_distilling(run_id, true);
    }
}

/// After `done`: stores what was recalled, distils (when marked) and stores what that did.
pub fn after_done(
    console: &Console,
    run_id: &str,
    session: Option<Arc<MemorySession>>,
    llm: Arc<LlmClient>,
    outcome: RunOutcome,
) {
    let Some(session) = session else {
        return;
    };
    let console = console.clone();
    let run_id = run_id.to_owned();
    tokio::spawn(async move {
        store_notes(&console, &run_id, &session.recalled()).await;
        if console.memory().is_distilling(&run_id) {
            let notes = match LlmClient::new(deft_memory::model_config(llm.config())) {
                Ok(llm) => {
                    session
                        .distil(&llm, &outcome, &CancellationToken::new())
                        .await
                }
                Err(e) => {
                    tracing::warn!(run = %run_id, error = %e, "no model client to distil with");
                    Vec::new()
                }
            };
            store_notes(&console, &run_id, &notes).await;
            console.memory().set_distilling(&run_id, false);
        }
    });
}

async fn store_notes(console: &Console, run_id: &str, notes: &[MemoryNote]) {
    if let Err(e) = console.store().append_run_notes(run_id, notes).await {
        tracing::warn!(run = %run_id, error = %e, "cannot store the run's memory notes");
    }
}
