//! The action library's own parts: what may enter it ([`check`]), distilling a run's
//! successful steps into named actions ([`distil`]), and running one through the task runner
//! ([`run`]: `run_action`, trying an action).

pub mod check;
pub mod distil;
pub mod run;
