//! The desktop key syntax (pywinauto's `type_keys`, reference/ufo.md §10.3), parsed into key
//! strokes. Pure: no I/O, so the desktop backend can share it (it could move to deft-protocol).
//!
//! - plain characters type themselves (non-ASCII included);
//! - `{NAME}` is a named key (`{ENTER}`, `{TAB}`, `{F5}`, `{VK_RETURN}`…), `{NAME N}` repeats it
//!   N times, `{+}` `{^}` `{%}` `{~}` `{(}` `{)}` `{{}` `{}}` are literal characters;
//! - `+`, `^`, `%` hold Shift, Ctrl, Alt for the next key or the next `( … )` group;
//! - `~` is Enter.
//!
//! ```
//! use deft_backend_browser::keys::{parse_keys, Key, Modifiers};
//! let strokes = parse_keys("^a{DELETE}Hi{ENTER 2}").unwrap();
//! assert_eq!(strokes[0].key, Key::Char('a'));
//! assert_eq!(strokes[0].modifiers, Modifiers { ctrl: true, ..Modifiers::default() });
//! assert_eq!(strokes.len(), 6);
//! ```

/// Held modifier keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Modifiers {
    /// Alt (`%`).
    pub alt: bool,
    /// Ctrl (`^`).
    pub ctrl: bool,
    /// Shift (`+`).
    pub shift: bool,
}

impl Modifiers {
    /// CDP's bit mask: Alt 1, Ctrl 2, Meta 4, Shift 8.
    pub fn cdp_mask(self) -> u8 {
        u8::from(self.alt) | (u8::from(self.ctrl) << 1) | (u8::from(self.shift) << 3)
    }

    fn is_empty(self) -> bool {
        !(self.alt || self.ctrl || self.shift)
    }
}

/// One key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// A character that types itself.
    Char(char),
    /// A named key in DOM `key` terms: `Enter`, `Tab`, `Escape`, `ArrowUp`, `F5`, …
    Named(&'static str),
}

/// One key press (down and up) with modifiers held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyStroke {
    /// The key.
    pub key: Key,
    /// Modifiers held while pressing it.
    pub modifiers: Modifiers,
}

/// A key string that does not parse; the text says where and why, for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct KeyError(pub String);

/// Upper bound on strokes from one string (a `{TAB 100000}` would otherwise run for minutes).
pub const MAX_STROKES: usize = 2000;

const NAMED: &[(&str, &str)] = &[
    ("ENTER", "Enter"),
    ("RETURN", "Enter"),
    ("VK_RETURN", "Enter"),
    ("TAB", "Tab"),
    ("VK_TAB", "Tab"),
    ("ESC", "Escape"),
    ("ESCAPE", "Escape"),
    ("VK_ESCAPE", "Escape"),
    ("BACKSPACE", "Backspace"),
    ("BS", "Backspace"),
    ("BKSP", "Backspace"),
    ("VK_BACK", "Backspace"),
    ("DELETE", "Delete"),
    ("DEL", "Delete"),
    ("VK_DELETE", "Delete"),
    ("INSERT", "Insert"),
    ("INS", "Insert"),
    ("HOME", "Home"),
    ("VK_HOME", "Home"),
    ("END", "End"),
    ("VK_END", "End"),
    ("PGUP", "PageUp"),
    ("PAGEUP", "PageUp"),
    ("VK_PRIOR", "PageUp"),
    ("PGDN", "PageDown"),
    ("PAGEDOWN", "PageDown"),
    ("VK_NEXT", "PageDown"),
    ("UP", "ArrowUp"),
    ("VK_UP", "ArrowUp"),
    ("DOWN", "ArrowDown"),
    ("VK_DOWN", "ArrowDown"),
    ("LEFT", "ArrowLeft"),
    ("VK_LEFT", "ArrowLeft"),
    ("RIGHT", "ArrowRight"),
    ("VK_RIGHT", "ArrowRight"),
    ("SPACE", " "),
    ("VK_SPACE", " "),
    ("F1", "F1"),
    ("F2", "F2"),
    ("F3", "F3"),
    ("F4", "F4"),
    ("F5", "F5"),
    ("F6", "F6"),
    ("F7", "F7"),
    ("F8", "F8"),
    ("F9", "F9"),
    ("F10", "F10"),
    ("F11", "F11"),
    ("F12", "F12"),
];

fn named(name: &str) -> Option<Key> {
    let upper = name.to_ascii_uppercase();
    NAMED.iter().find(|(n, _)| *n == upper).map(|(_, k)| {
        if *k == " " {
            Key::Char(' ')
        } else {
            Key::Named(k)
        }
    })
}

/// Parses `keys` into strokes. Errors name the problem and the position (in characters).
pub fn parse_keys(keys: &str) -> Result<Vec<KeyStroke>, KeyError> {
    let chars: Vec<char> = keys.chars().collect();
    let mut out = Vec::new();
    let mut held = Modifiers::default();
    // Modifiers of the open `( … )` group, if any.
    let mut group: Option<Modifiers> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let mods = match group {
            Some(g) => Modifiers {
                alt: g.alt || held.alt,
                ctrl: g.ctrl || held.ctrl,
                shift: g.shift || held.shift,
            },
            None => held,
        };
        match c {
            '+' => held.shift = true,
            '^' => held.ctrl = true,
            '%' => held.alt = true,
            '(' => {
                if group.is_some() {
                    return Err(KeyError(format!(
                        "Nested '(' at position {i} in the keys: groups cannot nest; type a literal parenthesis as {{(}}."
                    )));
                }
                group = Some(held);
                held = Modifiers::default();
            }
            ')' => {
                if group.is_none() {
                    return Err(KeyError(format!(
                        "Unmatched ')' at position {i} in the keys; type a literal parenthesis as {{)}}."
                    )));
                }
                group = None;
                held = Modifiers::default();
            }
            '~' => {
                out.push(KeyStroke {
                    key: Key::Named("Enter"),
                    modifiers: mods,
                });
                held = Modifiers::default();
            }
            '{' => {
                // `{}}` and `{{}` are the literal braces.
                let (inner, end) = if chars.get(i + 1) == Some(&'}')
                    && chars.get(i + 2) == Some(&'}')
                {
                    ("}".to_owned(), i + 2)
                } else {
                    let close = chars[i + 1..].iter().position(|&c| c == '}').ok_or_else(|| {
                        KeyError(format!(
                            "Unclosed '{{' at position {i} in the keys; write named keys as {{ENTER}} and a literal brace as {{{{}}."
                        ))
                    })?;
                    (
                        chars[i + 1..i + 1 + close].iter().collect::<String>(),
                        i + 1 + close,
                    )
                };
                let (name, count) = match inner.rsplit_once(' ') {
                    Some((n, c)) if !n.is_empty() => match c.parse::<usize>() {
                        Ok(c) => (n.to_owned(), c),
                        Err(_) => {
                            return Err(KeyError(format!(
                                "'{{{inner}}}' at position {i}: the repeat count must be a number, as in {{TAB 2}}."
                            )));
                        }
                    },
                    _ => (inner.clone(), 1),
                };
                let key = if name.chars().count() == 1 {
                    name.chars().next().map(Key::Char)
                } else {
                    named(&name)
                }
                .ok_or_else(|| {
                    KeyError(format!(
                        "Unknown key '{{{name}}}' at position {i}. Known: {{ENTER}}, {{TAB}}, {{ESC}}, {{BACKSPACE}}, {{DELETE}}, {{HOME}}, {{END}}, {{PGUP}}, {{PGDN}}, {{UP}}, {{DOWN}}, {{LEFT}}, {{RIGHT}}, {{SPACE}}, {{F1}}…{{F12}}, {{INSERT}} and their VK_ names."
                    ))
                })?;
                if out.len() + count > MAX_STROKES {
                    return Err(KeyError(format!(
                        "The keys ask for more than {MAX_STROKES} key presses; send them in smaller parts."
                    )));
                }
                for _ in 0..count {
                    out.push(KeyStroke {
                        key: key.clone(),
                        modifiers: mods,
                    });
                }
                held = Modifiers::default();
                i = end;
            }
            c => {
                out.push(KeyStroke {
                    key: Key::Char(c),
                    modifiers: mods,
                });
                held = Modifiers::default();
            }
        }
        i += 1;
        if out.len() > MAX_STROKES {
            return Err(KeyError(format!(
                "The keys ask for more than {MAX_STROKES} key presses; send them in smaller parts."
            )));
        }
    }
    if group.is_some() {
        return Err(KeyError(
            "Unclosed '(' in the keys; close the group with ')' or type a literal parenthesis as {(}."
                .into(),
        ));
    }
    if !held.is_empty() {
        return Err(KeyError(
            "The keys end with a modifier (+, ^ or %) and no key to press with it; type a literal one as {+}, {^} or {%}."
                .into(),
        ));
    }
    Ok(out)
}

/// The escaping UFO applies to text before typing it as keys (ufo.md §10.3), so that literal
/// `+ ^ % ( )` and newlines/tabs survive [`parse_keys`].
pub fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("{ENTER}"),
            '\t' => out.push_str("{TAB}"),
            '+' | '^' | '%' | '(' | ')' | '~' | '{' | '}' => {
                out.push('{');
                out.push(c);
                out.push('}');
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctrl() -> Modifiers {
        Modifiers {
            ctrl: true,
            ..Modifiers::default()
        }
    }

    #[test]
    fn plain_named_repeat_and_modifiers() {
        let s = parse_keys("aé{TAB 2}^a+(bc)%{F4}~").unwrap();
        let keys: Vec<_> = s.iter().map(|k| (k.key.clone(), k.modifiers)).collect();
        let shift = Modifiers {
            shift: true,
            ..Modifiers::default()
        };
        let alt = Modifiers {
            alt: true,
            ..Modifiers::default()
        };
        assert_eq!(
            keys,
            vec![
                (Key::Char('a'), Modifiers::default()),
                (Key::Char('é'), Modifiers::default()),
                (Key::Named("Tab"), Modifiers::default()),
                (Key::Named("Tab"), Modifiers::default()),
                (Key::Char('a'), ctrl()),
                (Key::Char('b'), shift),
                (Key::Char('c'), shift),
                (Key::Named("F4"), alt),
                (Key::Named("Enter"), Modifiers::default()),
            ]
        );
    }

    #[test]
    fn literals_and_escape_round_trip() {
        let text = "a+b^c%d(e)f~g{h}\nx\ty";
        let s = parse_keys(&escape_text(text)).unwrap();
        let typed: String = s
            .iter()
            .map(|k| match &k.key {
                Key::Char(c) => *c,
                Key::Named("Enter") => '\n',
                Key::Named("Tab") => '\t',
                Key::Named(_) => '?',
            })
            .collect();
        assert_eq!(typed, text);
        assert!(s.iter().all(|k| k.modifiers == Modifiers::default()));
    }

    #[test]
    fn errors_say_what_to_do() {
        assert_eq!(
            parse_keys("{NOPE}").unwrap_err().0,
            "Unknown key '{NOPE}' at position 0. Known: {ENTER}, {TAB}, {ESC}, {BACKSPACE}, {DELETE}, {HOME}, {END}, {PGUP}, {PGDN}, {UP}, {DOWN}, {LEFT}, {RIGHT}, {SPACE}, {F1}…{F12}, {INSERT} and their VK_ names."
        );
        assert_eq!(
            parse_keys("ab{ENTER").unwrap_err().0,
            "Unclosed '{' at position 2 in the keys; write named keys as {ENTER} and a literal brace as {{}."
        );
        assert_eq!(
            parse_keys("{TAB x}").unwrap_err().0,
            "'{TAB x}' at position 0: the repeat count must be a number, as in {TAB 2}."
        );
        assert_eq!(
            parse_keys("a^").unwrap_err().0,
            "The keys end with a modifier (+, ^ or %) and no key to press with it; type a literal one as {+}, {^} or {%}."
        );
        assert_eq!(
            parse_keys("a)").unwrap_err().0,
            "Unmatched ')' at position 1 in the keys; type a literal parenthesis as {)}."
        );
        assert_eq!(
            parse_keys("{TAB 5000}").unwrap_err().0,
            "The keys ask for more than 2000 key presses; send them in smaller parts."
        );
    }
}
