//! Warnings: what is valid but likely a mistake — a step the device cannot do, `click_xy`
//! with no note saying why coordinates, an empty branch, key text that spells a combination
//! in words, a wait longer than its own timeout, and steps after one that ends the run.

use deft_protocol::keys;

use super::ctx::Ctx;
use super::device;
use crate::step::{Action, Step, StepType};
use crate::texts;

pub(super) fn step(ctx: &mut Ctx<'_>, step: &Step, path: &str) {
    if let Some(kind) = ctx.device
        && let Some(why) = device::cannot(kind, &step.action)
    {
        ctx.warn(path, why);
    }
    match &step.action {
        Action::ClickXy(_) if step.note.is_none() => {
            ctx.warn(path, texts::CLICK_XY_WITHOUT_NOTE);
        }
        Action::Loop(l) if l.steps.is_empty() => {
            ctx.warn(
                format!("{path}.steps"),
                texts::empty_branch(StepType::Loop.as_str(), "steps"),
            );
        }
        Action::ForEach(e) if e.steps.is_empty() => {
            ctx.warn(
                format!("{path}.steps"),
                texts::empty_branch(StepType::ForEach.as_str(), "steps"),
            );
        }
        Action::Group(g) if g.steps.is_empty() => {
            ctx.warn(
                format!("{path}.steps"),
                texts::empty_branch(StepType::Group.as_str(), "steps"),
            );
        }
        Action::IfEl(i) if i.then.is_empty() => {
            ctx.warn(
                format!("{path}.then"),
                texts::empty_branch(StepType::IfEl.as_str(), "then"),
            );
        }
        Action::KeyEvent(k) => {
            if let Some(instead) = keys_in_words(&k.keys) {
                ctx.warn(
                    format!("{path}.keys"),
                    texts::modifier_words(&k.keys, &instead),
                );
            }
        }
        Action::Wait(w) => {
            if let Some(t) = step.timeout_s.filter(|t| *t < w.seconds) {
                ctx.warn(
                    format!("{path}.timeout_s"),
                    texts::wait_outlasts_timeout(w.seconds, t),
                );
            }
        }
        _ => {}
    }
}

/// Warnings about a whole list (`path`): steps after one that ends the run.
pub(super) fn list(ctx: &mut Ctx<'_>, steps: &[Step], path: &str) {
    let ender = steps
        .iter()
        .position(|s| matches!(s.action, Action::StopSelf(_) | Action::MarkDone(_)));
    if let Some(i) = ender
        && i + 1 < steps.len()
    {
        ctx.warn(
            format!("{path}[{}]", i + 1),
            texts::unreachable(steps[i].step_type().as_str(), &format!("{path}[{i}]")),
        );
    }
}

/// The key syntax for text that spells keys in words: `ctrl+s` → `^s`, `Alt+F4` → `%{F4}`,
/// `enter` → `{ENTER}`; `None` for anything else.
fn keys_in_words(text: &str) -> Option<String> {
    if text.contains(['{', '}', '^', '%', '~', '(', ')']) {
        return None;
    }
    let parts: Vec<&str> = text.split('+').map(str::trim).collect();
    let (last, mods) = parts.split_last()?;
    let key = if last.chars().count() == 1 {
        last.to_lowercase()
    } else {
        let named = format!("{{{}}}", last.to_ascii_uppercase());
        keys::parse(&named).ok()?;
        named
    };
    if mods.is_empty() {
        // A lone word such as "enter" (a single character is just typed, as meant).
        return (key.starts_with('{')).then_some(key);
    }
    let mut prefix = String::new();
    let mut wrap = false;
    for m in mods {
        match m.to_ascii_lowercase().as_str() {
            "ctrl" | "control" => prefix.push('^'),
            "shift" => prefix.push('+'),
            "alt" => prefix.push('%'),
            "super" | "win" | "cmd" | "meta" => wrap = true,
            _ => return None,
        }
    }
    let combo = format!("{prefix}{key}");
    Some(if wrap {
        format!("{{VK_LWIN down}}{combo}{{VK_LWIN up}}")
    } else {
        combo
    })
}

#[cfg(test)]
mod tests {
    use super::keys_in_words;

    #[test]
    fn key_combinations_in_words_get_the_syntax() {
        assert_eq!(keys_in_words("ctrl+s").as_deref(), Some("^s"));
        assert_eq!(keys_in_words("Ctrl+Shift+S").as_deref(), Some("^+s"));
        assert_eq!(keys_in_words("alt+f4").as_deref(), Some("%{F4}"));
        assert_eq!(keys_in_words("enter").as_deref(), Some("{ENTER}"));
        assert_eq!(
            keys_in_words("super+e").as_deref(),
            Some("{VK_LWIN down}e{VK_LWIN up}")
        );
        for fine in ["^s", "{ENTER}", "{TAB 2}", "hello world", "a", "1+1", "x+y"] {
            assert_eq!(keys_in_words(fine), None, "{fine}");
        }
    }
}
