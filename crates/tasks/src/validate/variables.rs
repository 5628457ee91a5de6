//! The checks of the variables a step uses: each must be in scope where the step is (the
//! task's, the run request's, or read by an earlier `clipboard` step), and each declared or
//! read variable should be used somewhere.

use super::ctx::Ctx;
use super::suggest::closest;
use crate::texts;

/// The parameters a secret variable may be used in: what `input_text` and `key_event` type.
/// Anywhere else (a selector, a URL, a message) its value would be shown or matched against
/// what a screen shows.
const SECRET_FIELDS: &[&str] = &["text", "keys"];

/// Checks the variables a step's parameters use (`refs`: parameter path, name), given the
/// reads before the step (`mark`).
pub(super) fn check_uses(ctx: &mut Ctx<'_>, path: &str, refs: &[(String, String)], mark: usize) {
    for (field, name) in refs {
        ctx.vars.used(name);
        if let Some(secret) = ctx.vars.secret_of(name)
            && !SECRET_FIELDS.contains(&field.as_str())
        {
            let message = texts::secret_used_in(name, secret, field);
            ctx.error(format!("{path}.{field}"), message);
        }
        if !ctx.vars.known(name, mark) {
            let candidates = ctx.vars.candidates(mark);
            let hint = closest(name, candidates.iter().map(String::as_str)).map(str::to_owned);
            ctx.error(
                format!("{path}.{field}"),
                texts::unknown_variable(name, hint.as_deref()),
            );
        }
    }
}

/// Warnings for variables declared or read and never used.
pub(super) fn warn_unused(ctx: &mut Ctx<'_>) {
    for name in ctx.vars.unused_declared() {
        ctx.warn(format!("variables.{name}"), texts::variable_unused(&name));
    }
    for (name, path) in ctx.vars.unused_reads() {
        ctx.warn(format!("{path}.read_into"), texts::read_unused(&name));
    }
}
