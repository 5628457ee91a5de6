//! The store suite, written once: every case takes a `&Store` (a few also the URL of the same
//! database, to reach under the store) and runs on SQLite and on PostgreSQL.

mod api_tokens;
mod conversations;
mod fleet;
mod history;
mod memory;
mod meta_users;
mod migrations;
mod notifications;
mod runs;
mod tasks;
mod versions;
mod webhooks;

pub use api_tokens::*;
pub use conversations::*;
pub use fleet::*;
pub use history::*;
pub use memory::*;
pub use meta_users::*;
pub use migrations::*;
pub use notifications::*;
pub use runs::*;
pub use tasks::*;
pub use versions::*;
pub use webhooks::*;

use deft_store::{Message, Usage};

/// A user message.
pub fn user(text: &str) -> Message {
    Message {
        role: "user".into(),
        content: text.into(),
        created_at_ms: 1_700_000_000_000,
        run_id: None,
        status: None,
        usage: None,
        reasoning: None,
        steps: vec![],
    }
}

/// An assistant message with usage.
pub fn assistant(text: &str, usage: Usage) -> Message {
    Message {
        role: "assistant".into(),
        content: text.into(),
        created_at_ms: 1_700_000_000_500,
        run_id: Some("run-1".into()),
        status: Some(deft_protocol::DoneStatus::Completed),
        usage: Some(usage),
        reasoning: Some("thinking".into()),
        steps: vec![],
    }
}

/// A usage value.
pub fn usage(prompt: u64, completion: u64, calls: u64) -> Usage {
    Usage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        calls,
    }
}

/// Lets the millisecond clock move on, so timestamps of consecutive writes differ.
pub async fn tick() {
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
}

/// Reads a whole list with `read` (given the page that holds it all; it answers the page and the
/// total) until it holds `rows` rows, while `writer` adds them: every reading's total must equal
/// its page's length, i.e. both come from one snapshot.
pub async fn total_agrees_while_writing<T, F, Fut>(
    writer: tokio::task::JoinHandle<()>,
    rows: usize,
    read: F,
) where
    F: Fn(deft_store::Page) -> Fut,
    Fut: std::future::Future<Output = deft_store::Paged<T>>,
{
    let all = deft_store::Page {
        limit: 1_000,
        offset: 0,
    };
    let mut seen = 0;
    while seen < rows {
        let page = read(all).await;
        assert_eq!(page.total as usize, page.items.len(), "one snapshot");
        seen = page.items.len();
    }
    writer.await.unwrap();
}

/// The stamp of a task created by a test.
pub fn created() -> deft_store::VersionStamp {
    deft_store::VersionStamp::new("test", deft_store::VersionCause::Create)
}

/// The stamp of a task edited by a test.
pub fn edited() -> deft_store::VersionStamp {
    deft_store::VersionStamp::new("test", deft_store::VersionCause::Edit)
}
