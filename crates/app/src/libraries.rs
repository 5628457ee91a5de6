//! The experience and action libraries as the front ends see them: their settings, the check
//! every saved action passes, the limit of an experience's recipe. Re-exported from
//! deft-memory, so a front end edits the libraries through the application and never reaches
//! recall or distilling.

pub use deft_memory::experience::gate::MAX_RECIPE_CHARS;
pub use deft_memory::{MemoryConfig, check_submission};
