//! Runs on this machine without a server (`deft run`): the memory a chat takes part in, opened
//! from the data folder's store, so the CLI opens neither the store nor the memory itself.

use std::path::Path;
use std::sync::Arc;

use deft_agent::RunProfile;
use deft_memory::{Memory, MemoryConfig, MemorySession};
use deft_store::{Store, StoreError};

/// The memory of the data folder's store (or of `database_url`'s database).
pub async fn open_memory(
    data_dir: &Path,
    database_url: Option<&str>,
) -> Result<Memory, StoreError> {
    let store = Store::open(data_dir, database_url).await?;
    Ok(Memory::new(store, MemoryConfig::default()))
}

/// A chat's profile with `memory`'s session for run `run_id` taking part (the session is also
/// returned, to distil the run after its answer); without a memory, a plain chat.
pub fn chat_profile(
    memory: Option<&Memory>,
    run_id: &str,
) -> (RunProfile, Option<Arc<MemorySession>>) {
    match memory {
        Some(memory) => {
            let session = memory.session(Some(run_id));
            (
                RunProfile::chat().with_extension(session.clone()),
                Some(session),
            )
        }
        None => (RunProfile::chat(), None),
    }
}
