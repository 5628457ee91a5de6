//! The experience library's own parts: distilling a run into a recipe ([`distil`]) and the
//! quality gate every recipe passes ([`gate`]). Recall and the audit live beside the action
//! library's in the crate root.

pub mod distil;
pub mod gate;
