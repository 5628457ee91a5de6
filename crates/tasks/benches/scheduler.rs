//! The scheduler bench (written below).
#![allow(clippy::print_stdout, clippy::print_stderr)]
fn main() {}
