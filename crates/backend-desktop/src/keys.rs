//! The key syntax of `keyboard_input` (UFO's, from pywinauto's `send_keys`):
//!
//! - plain characters are typed as they are, any Unicode character included (`café 苏州`);
//! - `{ENTER}`, `{TAB}`, `{ESC}`, `{BACKSPACE}`, `{DELETE}`, `{HOME}`, `{END}`, `{UP}`, `{DOWN}`,
//!   `{LEFT}`, `{RIGHT}`, `{PGUP}`, `{PGDN}`, `{INSERT}`, `{SPACE}`, `{F1}`…`{F12}` press a named key;
//!   `{TAB 2}` presses it twice; `{a 3}` types `a` three times;
//! - `^` (Ctrl), `+` (Shift), `%` (Alt) hold a modifier for the next key or the next `( … )`
//!   group: `^a` (select all), `^{END}`, `+{TAB}`, `^(ac)`;
//! - `~` is Enter; `{+}`, `{^}`, `{%}`, `{~}`, `{{}`, `{}}`, `{(}`, `{)}` type those characters;
//! - `{VK_CONTROL down}` … `{VK_CONTROL up}` hold a modifier across keys (`VK_SHIFT`, `VK_MENU`
//!   for Alt, `VK_LWIN` for Super); `{VK_RETURN}`-style names work for the named keys too.

/// One step of a parsed key sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyStep {
    /// Type one character (any Unicode scalar).
    Char(char),
    /// Press and release the key with this X keysym.
    Key(u32),
    /// Press a modifier (`shift`, `control`, `alt`, `super`).
    ModDown(&'static str),
    /// Release a modifier.
    ModUp(&'static str),
}

/// Why a key string could not be parsed (the text is for the model).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct KeyError(pub String);

fn named_key(name: &str) -> Option<u32> {
    let n = name.to_ascii_uppercase();
    let n = n.strip_prefix("VK_").unwrap_or(&n);
    Some(match n {
        "ENTER" | "RETURN" => 0xff0d,
        "TAB" => 0xff09,
        "ESC" | "ESCAPE" => 0xff1b,
        "BACKSPACE" | "BS" | "BKSP" | "BACK" => 0xff08,
        "DELETE" | "DEL" => 0xffff,
        "HOME" => 0xff50,
        "END" => 0xff57,
        "UP" => 0xff52,
        "DOWN" => 0xff54,
        "LEFT" => 0xff51,
        "RIGHT" => 0xff53,
        "PGUP" | "PRIOR" | "PAGEUP" => 0xff55,
        "PGDN" | "NEXT" | "PAGEDOWN" => 0xff56,
        "INSERT" | "INS" => 0xff63,
        "SPACE" => 0x20,
        "CAPSLOCK" | "CAPITAL" => 0xffe5,
        "PRTSC" | "SNAPSHOT" => 0xff61,
        "APPS" | "MENU_KEY" => 0xff67,
        f if f.starts_with('F') && f.len() <= 3 => {
            let k: u32 = f[1..].parse().ok()?;
            if (1..=24).contains(&k) {
                0xffbe + k - 1
            } else {
                return None;
            }
        }
        _ => return None,
    })
}

fn modifier_key(name: &str) -> Option<&'static str> {
    match name.to_ascii_uppercase().as_str() {
        "VK_CONTROL" | "VK_LCONTROL" | "VK_RCONTROL" | "CTRL" | "CONTROL" => Some("control"),
        "VK_SHIFT" | "VK_LSHIFT" | "VK_RSHIFT" | "SHIFT" => Some("shift"),
        "VK_MENU" | "VK_LMENU" | "VK_RMENU" | "ALT" => Some("alt"),
        "VK_LWIN" | "VK_RWIN" | "WIN" | "SUPER" => Some("super"),
        _ => None,
    }
}

/// Parses `keys` into steps. Errors name the offending part and the syntax.
pub fn parse(keys: &str) -> Result<Vec<KeyStep>, KeyError> {
    let chars: Vec<char> = keys.chars().collect();
    let mut out = Vec::new();
    let mut pending: Vec<&'static str> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '^' | '+' | '%' => {
                pending.push(match c {
                    '^' => "control",
                    '+' => "shift",
                    _ => "alt",
                });
                i += 1;
                continue;
            }
            '(' => {
                let close = chars[i + 1..]
                    .iter()
                    .position(|&x| x == ')')
                    .ok_or_else(|| {
                        KeyError(format!(
                            "Unclosed '(' at position {i} in keys {keys:?}. Use {{(}} to type a parenthesis."
                        ))
                    })?;
                let inner: String = chars[i + 1..i + 1 + close].iter().collect();
                let mods = std::mem::take(&mut pending);
                push_mods_down(&mut out, &mods);
                out.extend(parse(&inner)?);
                push_mods_up(&mut out, &mods);
                i += close + 2;
                continue;
            }
            '{' => {
                // `{}}` and `{{}` are literal braces.
                let close = if chars.get(i + 1) == Some(&'}') && chars.get(i + 2) == Some(&'}') {
                    i + 2
                } else {
                    chars[i + 1..]
                        .iter()
                        .position(|&x| x == '}')
                        .map(|p| i + 1 + p)
                        .ok_or_else(|| {
                            KeyError(format!(
                                "Unclosed '{{' at position {i} in keys {keys:?}. Named keys look like {{ENTER}} or {{TAB 2}}; type a brace as {{{{}}."
                            ))
                        })?
                };
                let inner: String = chars[i + 1..close].iter().collect();
                let mods = std::mem::take(&mut pending);
                push_mods_down(&mut out, &mods);
                out.extend(brace(&inner, keys)?);
                push_mods_up(&mut out, &mods);
                i = close + 1;
                continue;
            }
            _ => {}
        }
        let mods = std::mem::take(&mut pending);
        push_mods_down(&mut out, &mods);
        if c == '~' || c == '\n' {
            out.push(KeyStep::Key(0xff0d));
        } else if c == '\t' {
            out.push(KeyStep::Key(0xff09));
        } else {
            out.push(KeyStep::Char(c));
        }
        push_mods_up(&mut out, &mods);
        i += 1;
    }
    if !pending.is_empty() {
        return Err(KeyError(format!(
            "Keys {keys:?} end with a modifier (^, + or %) and no key after it. Write e.g. ^a for Ctrl+A, or {{+}} to type a plus sign."
        )));
    }
    Ok(out)
}

fn push_mods_down(out: &mut Vec<KeyStep>, mods: &[&'static str]) {
    out.extend(mods.iter().map(|m| KeyStep::ModDown(m)));
}

fn push_mods_up(out: &mut Vec<KeyStep>, mods: &[&'static str]) {
    out.extend(mods.iter().rev().map(|m| KeyStep::ModUp(m)));
}

fn brace(inner: &str, keys: &str) -> Result<Vec<KeyStep>, KeyError> {
    let mut parts = inner.split_whitespace();
    let name = parts.next().unwrap_or("");
    let arg = parts.next();
    if parts.next().is_some() {
        return Err(unknown(inner, keys));
    }
    if let Some(m) = modifier_key(name) {
        return match arg.map(str::to_ascii_lowercase).as_deref() {
            Some("down") => Ok(vec![KeyStep::ModDown(m)]),
            Some("up") => Ok(vec![KeyStep::ModUp(m)]),
            None => Ok(vec![KeyStep::ModDown(m), KeyStep::ModUp(m)]),
            Some(_) => Err(unknown(inner, keys)),
        };
    }
    let count = match arg {
        None => 1,
        Some(n) => n.parse::<usize>().ok().filter(|n| *n <= 1000).ok_or_else(|| {
            KeyError(format!(
                "{{{inner}}} in keys {keys:?}: the repeat count must be a number from 0 to 1000, as in {{TAB 2}}."
            ))
        })?,
    };
    let step = if let Some(sym) = named_key(name) {
        KeyStep::Key(sym)
    } else {
        let mut cs = name.chars();
        match (cs.next(), cs.next()) {
            (Some(c), None) => KeyStep::Char(c),
            _ => return Err(unknown(inner, keys)),
        }
    };
    Ok(std::iter::repeat_n(step, count).collect())
}

fn unknown(inner: &str, keys: &str) -> KeyError {
    KeyError(format!(
        "Unknown key {{{inner}}} in keys {keys:?}. Named keys: ENTER, TAB, ESC, BACKSPACE, DELETE, HOME, END, UP, DOWN, LEFT, RIGHT, PGUP, PGDN, INSERT, SPACE, F1-F24, with an optional count ({{TAB 2}}); modifiers: ^ Ctrl, + Shift, % Alt, or {{VK_CONTROL down}} … {{VK_CONTROL up}}."
    ))
}

#[cfg(test)]
mod tests {
    use super::KeyStep::*;
    use super::*;

    #[test]
    fn plain_text_and_unicode() {
        assert_eq!(
            parse("aé苏").unwrap(),
            vec![Char('a'), Char('é'), Char('苏')]
        );
    }

    #[test]
    fn named_keys_with_counts() {
        assert_eq!(
            parse("{ENTER}{TAB 2}").unwrap(),
            vec![Key(0xff0d), Key(0xff09), Key(0xff09)]
        );
        assert_eq!(parse("{VK_RETURN}").unwrap(), vec![Key(0xff0d)]);
        assert_eq!(parse("{F5}").unwrap(), vec![Key(0xffc2)]);
    }

    #[test]
    fn modifiers_apply_to_the_next_key_or_group() {
        assert_eq!(
            parse("^a").unwrap(),
            vec![ModDown("control"), Char('a'), ModUp("control")]
        );
        assert_eq!(
            parse("^{END}x").unwrap(),
            vec![ModDown("control"), Key(0xff57), ModUp("control"), Char('x')]
        );
        assert_eq!(
            parse("+(ab)").unwrap(),
            vec![ModDown("shift"), Char('a'), Char('b'), ModUp("shift")]
        );
        assert_eq!(
            parse("{VK_CONTROL down}c{VK_CONTROL up}").unwrap(),
            vec![ModDown("control"), Char('c'), ModUp("control")]
        );
    }

    #[test]
    fn escapes_type_the_special_characters() {
        assert_eq!(
            parse("{+}{^}{%}{~}{{}{}}{(}").unwrap(),
            vec![
                Char('+'),
                Char('^'),
                Char('%'),
                Char('~'),
                Char('{'),
                Char('}'),
                Char('(')
            ]
        );
        assert_eq!(parse("~").unwrap(), vec![Key(0xff0d)]);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(
            parse("{FOO}")
                .unwrap_err()
                .0
                .starts_with("Unknown key {FOO}")
        );
        assert!(parse("{ENTER").unwrap_err().0.starts_with("Unclosed '{'"));
        assert!(parse("abc^").unwrap_err().0.contains("end with a modifier"));
        assert!(parse("{TAB x}").unwrap_err().0.contains("repeat count"));
    }
}
