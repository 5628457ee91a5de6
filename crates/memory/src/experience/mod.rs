//! The experience library's own parts: distilling a run into a recipe ([`distil`]), the
//! quality gate every recipe passes ([`gate`]) and the near-duplicate it is merged into
//! ([`duplicate`]). Recall and the audit live beside the action
//! library's in the crate root.

pub mod distil;
mod duplicate;
pub mod gate;
