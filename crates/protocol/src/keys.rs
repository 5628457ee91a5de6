//! The key syntax of `keyboard_input`, shared by the desktop and the browser (UFO's, from
//! pywinauto's `send_keys`), parsed into key steps. Pure: each backend
//! maps the steps to its own input (X keysyms, CDP key events).
//!
//! - plain characters are typed as they are, any Unicode character included (`café 苏州`);
//!   a newline presses Enter and a tab character Tab;
//! - `{ENTER}`, `{TAB}`, `{ESC}`, `{BACKSPACE}`, `{DELETE}`, `{INSERT}`, `{HOME}`, `{END}`,
//!   `{PGUP}`, `{PGDN}`, `{UP}`, `{DOWN}`, `{LEFT}`, `{RIGHT}`, `{SPACE}`, `{F1}`…`{F24}` press
//!   a named key (the `VK_` names work too: `{VK_RETURN}`); `{TAB 2}` presses it twice and
//!   `{a 3}` types `a` three times;
//! - `^` (Ctrl), `+` (Shift), `%` (Alt) hold a modifier for the next key or the next `( … )`
//!   group: `^a` (select all), `^{END}`, `+{TAB}`, `^(ac)`; groups do not nest;
//! - `~` is Enter; `{+}`, `{^}`, `{%}`, `{~}`, `{{}`, `{}}`, `{(}`, `{)}` type those characters;
//! - `{VK_CONTROL down}` … `{VK_CONTROL up}` hold a modifier across keys (`VK_SHIFT`,
//!   `VK_MENU` for Alt, `VK_LWIN` for Super); `{VK_CONTROL}` alone taps it.
//!
//! One string presses at most [`MAX_KEY_PRESSES`] keys.
//!
//! ```
//! use deft_protocol::keys::{parse, KeyStep, Modifier, NamedKey};
//! let steps = parse("^a{DELETE}Hi{ENTER 2}").unwrap();
//! assert_eq!(steps[..3], [KeyStep::Down(Modifier::Ctrl), KeyStep::Char('a'), KeyStep::Up(Modifier::Ctrl)]);
//! assert_eq!(steps[3], KeyStep::Key(NamedKey::Delete));
//! assert_eq!(steps.len(), 8);
//! ```

use std::fmt;

/// The syntax in one paragraph, as a string literal, so tool descriptions can `concat!` it.
#[macro_export]
macro_rules! key_syntax {
    () => {
        "Key syntax: plain text is typed as is (any Unicode); {ENTER} {TAB} {ESC} {BACKSPACE} {DELETE} {HOME} {END} {UP} {DOWN} {LEFT} {RIGHT} {PGUP} {PGDN} {SPACE} {F1}..{F24} press named keys, and the device buttons {GO_BACK} {GO_HOME} {APP_SWITCH} {VOLUME_UP} {VOLUME_DOWN} {VOLUME_MUTE} {POWER} {WAKEUP} {SLEEP} (a phone's Back, Home and Recents; media keys elsewhere); {TAB 2} repeats; ^ = Ctrl, + = Shift, % = Alt for the next key or (group): ^a, ^{END}, +{TAB}, ^(ac); {VK_CONTROL down}..{VK_CONTROL up} holds a modifier; ~ = Enter; {+} {^} {%} {~} {{} {}} {(} {)} type those characters."
    };
}

/// Upper bound on key presses from one string (a `{TAB 100000}` would otherwise run for
/// minutes).
pub const MAX_KEY_PRESSES: usize = 2000;

/// A modifier key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// Control (`^`, `{VK_CONTROL}`).
    Ctrl,
    /// Shift (`+`, `{VK_SHIFT}`).
    Shift,
    /// Alt (`%`, `{VK_MENU}`).
    Alt,
    /// Super / Windows key (`{VK_LWIN}`).
    Super,
}

/// A key that is not a character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NamedKey {
    /// Enter / Return.
    Enter,
    /// Tab.
    Tab,
    /// Escape.
    Escape,
    /// Backspace.
    Backspace,
    /// Delete.
    Delete,
    /// Insert.
    Insert,
    /// Home.
    Home,
    /// End.
    End,
    /// Page Up.
    PageUp,
    /// Page Down.
    PageDown,
    /// Arrow up.
    ArrowUp,
    /// Arrow down.
    ArrowDown,
    /// Arrow left.
    ArrowLeft,
    /// Arrow right.
    ArrowRight,
    /// Caps Lock.
    CapsLock,
    /// Print Screen.
    PrintScreen,
    /// The context-menu key.
    Menu,
    /// A function key, 1 to 24.
    F(u8),
    /// Back (a phone's Back button, a browser's Back key).
    GoBack,
    /// Home (a phone's Home button: the launcher; a browser's Home key).
    GoHome,
    /// Recent apps (a phone's Recents button).
    AppSwitch,
    /// Volume up.
    VolumeUp,
    /// Volume down.
    VolumeDown,
    /// Mute.
    VolumeMute,
    /// Power (a phone's power button: screen on/off).
    Power,
    /// Wake up (turns a phone's screen on, never off).
    WakeUp,
    /// Sleep (turns a phone's screen off, never on).
    Sleep,
}

/// One step of a parsed key sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyStep {
    /// Type one character (press and release).
    Char(char),
    /// Press and release a named key.
    Key(NamedKey),
    /// Press a modifier and keep it held.
    Down(Modifier),
    /// Release a held modifier.
    Up(Modifier),
}

/// Whether `steps` copy or cut to the clipboard as applications bind it: Ctrl with `c` or `x`
/// (Ctrl+Shift+C in terminals too), Ctrl+Insert, or Shift+Delete.
pub fn copies(steps: &[KeyStep]) -> bool {
    let mut held: Vec<Modifier> = Vec::new();
    for step in steps {
        match *step {
            KeyStep::Down(m) => held.push(m),
            KeyStep::Up(m) => {
                if let Some(at) = held.iter().rposition(|h| *h == m) {
                    held.remove(at);
                }
            }
            KeyStep::Char(c) if held.contains(&Modifier::Ctrl) => {
                if matches!(c.to_ascii_lowercase(), 'c' | 'x') {
                    return true;
                }
            }
            KeyStep::Key(NamedKey::Insert) if held.contains(&Modifier::Ctrl) => return true,
            KeyStep::Key(NamedKey::Delete) if held.contains(&Modifier::Shift) => return true,
            _ => {}
        }
    }
    false
}

/// Why a key string could not be parsed; the text says where and what to write instead, for
/// the model (displayed after "The keys could not be typed: ").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError(pub String);

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "The keys could not be typed: {}", self.0)
    }
}

impl std::error::Error for KeyError {}

fn named_key(name: &str) -> Option<NamedKey> {
    let upper = name.to_ascii_uppercase();
    let n = upper.strip_prefix("VK_").unwrap_or(&upper);
    Some(match n {
        "ENTER" | "RETURN" => NamedKey::Enter,
        "TAB" => NamedKey::Tab,
        "ESC" | "ESCAPE" => NamedKey::Escape,
        "BACKSPACE" | "BS" | "BKSP" | "BACK" => NamedKey::Backspace,
        "DELETE" | "DEL" => NamedKey::Delete,
        "INSERT" | "INS" => NamedKey::Insert,
        "HOME" => NamedKey::Home,
        "END" => NamedKey::End,
        "PGUP" | "PRIOR" | "PAGEUP" => NamedKey::PageUp,
        "PGDN" | "NEXT" | "PAGEDOWN" => NamedKey::PageDown,
        "UP" => NamedKey::ArrowUp,
        "DOWN" => NamedKey::ArrowDown,
        "LEFT" => NamedKey::ArrowLeft,
        "RIGHT" => NamedKey::ArrowRight,
        "CAPSLOCK" | "CAPITAL" => NamedKey::CapsLock,
        "PRTSC" | "SNAPSHOT" => NamedKey::PrintScreen,
        "APPS" | "MENU_KEY" => NamedKey::Menu,
        "GO_BACK" | "BROWSER_BACK" => NamedKey::GoBack,
        "GO_HOME" | "BROWSER_HOME" => NamedKey::GoHome,
        "APP_SWITCH" | "RECENTS" => NamedKey::AppSwitch,
        "VOLUME_UP" => NamedKey::VolumeUp,
        "VOLUME_DOWN" => NamedKey::VolumeDown,
        "VOLUME_MUTE" | "MUTE" => NamedKey::VolumeMute,
        "POWER" => NamedKey::Power,
        "WAKEUP" | "WAKE_UP" => NamedKey::WakeUp,
        "SLEEP" => NamedKey::Sleep,
        f => {
            let k: u8 = f.strip_prefix('F')?.parse().ok()?;
            if !(1..=24).contains(&k) {
                return None;
            }
            NamedKey::F(k)
        }
    })
}

fn modifier_key(name: &str) -> Option<Modifier> {
    match name.to_ascii_uppercase().as_str() {
        "VK_CONTROL" | "VK_LCONTROL" | "VK_RCONTROL" | "CTRL" | "CONTROL" => Some(Modifier::Ctrl),
        "VK_SHIFT" | "VK_LSHIFT" | "VK_RSHIFT" | "SHIFT" => Some(Modifier::Shift),
        "VK_MENU" | "VK_LMENU" | "VK_RMENU" | "ALT" => Some(Modifier::Alt),
        "VK_LWIN" | "VK_RWIN" | "WIN" | "SUPER" => Some(Modifier::Super),
        _ => None,
    }
}

fn too_many() -> KeyError {
    KeyError(format!(
        "The keys ask for more than {MAX_KEY_PRESSES} key presses; send them in smaller parts."
    ))
}

fn unknown(inner: &str, at: usize) -> KeyError {
    KeyError(format!(
        "Unknown key '{{{inner}}}' at position {at}. Named keys: {{ENTER}}, {{TAB}}, {{ESC}}, {{BACKSPACE}}, {{DELETE}}, {{INSERT}}, {{HOME}}, {{END}}, {{PGUP}}, {{PGDN}}, {{UP}}, {{DOWN}}, {{LEFT}}, {{RIGHT}}, {{SPACE}}, {{F1}}…{{F24}} and their VK_ names, with an optional count ({{TAB 2}}); modifiers: ^ Ctrl, + Shift, % Alt, or {{VK_CONTROL down}} … {{VK_CONTROL up}}."
    ))
}

/// Parses `keys` into steps. Errors name the problem and its position (in characters).
pub fn parse(keys: &str) -> Result<Vec<KeyStep>, KeyError> {
    let chars: Vec<char> = keys.chars().collect();
    let mut p = Parser {
        out: Vec::new(),
        presses: 0,
    };
    // Modifiers typed before the next key or group, and those of the open group.
    let mut pending: Vec<Modifier> = Vec::new();
    let mut group: Option<Vec<Modifier>> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '^' | '+' | '%' => {
                pending.push(match c {
                    '^' => Modifier::Ctrl,
                    '+' => Modifier::Shift,
                    _ => Modifier::Alt,
                });
                i += 1;
                continue;
            }
            '(' => {
                if group.is_some() {
                    return Err(KeyError(format!(
                        "Nested '(' at position {i} in the keys: groups cannot nest; type a literal parenthesis as {{(}}."
                    )));
                }
                let mods = std::mem::take(&mut pending);
                p.down(&mods);
                group = Some(mods);
                i += 1;
                continue;
            }
            ')' => {
                let Some(mods) = group.take() else {
                    return Err(KeyError(format!(
                        "Unmatched ')' at position {i} in the keys; type a literal parenthesis as {{)}}."
                    )));
                };
                if !pending.is_empty() {
                    return Err(dangling());
                }
                p.up(&mods);
                i += 1;
                continue;
            }
            _ => {}
        }
        let mods = std::mem::take(&mut pending);
        p.down(&mods);
        if c == '{' {
            // `{}}` and `{{}` are the literal braces.
            let close = if chars.get(i + 1) == Some(&'}') && chars.get(i + 2) == Some(&'}') {
                i + 2
            } else {
                chars[i + 1..]
                    .iter()
                    .position(|&x| x == '}')
                    .map(|n| i + 1 + n)
                    .ok_or_else(|| {
                        KeyError(format!(
                            "Unclosed '{{' at position {i} in the keys; write named keys as {{ENTER}} or {{TAB 2}} and a literal brace as {{{{}}."
                        ))
                    })?
            };
            let inner: String = chars[i + 1..close].iter().collect();
            p.brace(&inner, i)?;
            i = close + 1;
        } else {
            p.press(match c {
                '~' | '\n' => KeyStep::Key(NamedKey::Enter),
                '\t' => KeyStep::Key(NamedKey::Tab),
                c => KeyStep::Char(c),
            })?;
            i += 1;
        }
        p.up(&mods);
    }
    if group.is_some() {
        return Err(KeyError(
            "Unclosed '(' in the keys; close the group with ')' or type a literal parenthesis as {(}."
                .into(),
        ));
    }
    if !pending.is_empty() {
        return Err(dangling());
    }
    Ok(p.out)
}

fn dangling() -> KeyError {
    KeyError(
        "A modifier (^, + or %) has no key after it; write e.g. ^a for Ctrl+A, or type a literal one as {+}, {^} or {%}."
            .into(),
    )
}

/// The steps parsed so far and the key presses they make.
struct Parser {
    out: Vec<KeyStep>,
    presses: usize,
}

impl Parser {
    fn press(&mut self, step: KeyStep) -> Result<(), KeyError> {
        self.presses += 1;
        if self.presses > MAX_KEY_PRESSES {
            return Err(too_many());
        }
        self.out.push(step);
        Ok(())
    }

    fn down(&mut self, mods: &[Modifier]) {
        self.out.extend(mods.iter().map(|m| KeyStep::Down(*m)));
    }

    fn up(&mut self, mods: &[Modifier]) {
        self.out.extend(mods.iter().rev().map(|m| KeyStep::Up(*m)));
    }

    /// `{NAME}`, `{NAME N}`, `{c}`, `{c N}`, `{VK_CONTROL down|up}`; `at` is the brace's position.
    fn brace(&mut self, inner: &str, at: usize) -> Result<(), KeyError> {
        // A literal space is `{ }`: do not split it away.
        let (name, arg) = match inner.rsplit_once(' ') {
            Some((n, a)) if !n.is_empty() && !a.is_empty() => (n, Some(a)),
            _ => (inner, None),
        };
        if let Some(m) = modifier_key(name) {
            match arg.map(str::to_ascii_lowercase).as_deref() {
                Some("down") => self.out.push(KeyStep::Down(m)),
                Some("up") => self.out.push(KeyStep::Up(m)),
                None => {
                    self.press(KeyStep::Down(m))?;
                    self.out.push(KeyStep::Up(m));
                }
                Some(_) => return Err(unknown(inner, at)),
            }
            return Ok(());
        }
        let count = match arg {
            None => 1,
            Some(n) => n.parse::<usize>().map_err(|_| {
                KeyError(format!(
                    "'{{{inner}}}' at position {at}: the repeat count must be a number, as in {{TAB 2}}."
                ))
            })?,
        };
        let step = if name.eq_ignore_ascii_case("SPACE") || name.eq_ignore_ascii_case("VK_SPACE") {
            KeyStep::Char(' ')
        } else if let Some(k) = named_key(name) {
            KeyStep::Key(k)
        } else {
            let mut cs = name.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => KeyStep::Char(c),
                _ => return Err(unknown(inner, at)),
            }
        };
        if self.presses + count > MAX_KEY_PRESSES {
            return Err(too_many());
        }
        for _ in 0..count {
            self.press(step)?;
        }
        Ok(())
    }
}

/// The escaping UFO applies to text before typing it as keys, so that literal
/// `+ ^ % ( ) ~ { }` survive [`parse`] (newlines and tabs press Enter and Tab as they are).
pub fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
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
    use super::KeyStep::*;
    use super::Modifier::*;
    use super::NamedKey::*;
    use super::*;

    #[test]
    fn copy_and_cut_chords_are_told_apart() {
        let copies_of = |keys: &str| copies(&parse(keys).unwrap());
        for keys in [
            "^c",
            "^a^c",
            "^x",
            "^+c",
            "{VK_CONTROL down}c{VK_CONTROL up}",
            "^{INSERT}",
            "+{DELETE}",
        ] {
            assert!(copies_of(keys), "{keys}");
        }
        for keys in [
            "c",
            "^v",
            "^a",
            "+c",
            "%c",
            "{DELETE}",
            "{VK_CONTROL down}{VK_CONTROL up}c",
        ] {
            assert!(!copies_of(keys), "{keys}");
        }
    }

    #[test]
    fn plain_text_and_unicode() {
        assert_eq!(
            parse("aé苏 ").unwrap(),
            vec![Char('a'), Char('é'), Char('苏'), Char(' ')]
        );
    }

    #[test]
    fn named_keys_with_counts() {
        assert_eq!(
            parse("{ENTER}{TAB 2}{a 2}").unwrap(),
            vec![Key(Enter), Key(Tab), Key(Tab), Char('a'), Char('a')]
        );
        assert_eq!(
            parse("{VK_RETURN}{vk_next}").unwrap(),
            vec![Key(Enter), Key(PageDown)]
        );
        assert_eq!(parse("{F5}{F24}").unwrap(), vec![Key(F(5)), Key(F(24))]);
        assert_eq!(parse("{SPACE 2}{ }").unwrap(), vec![Char(' '); 3]);
        assert_eq!(parse("{TAB 0}x").unwrap(), vec![Char('x')]);
        assert_eq!(
            parse("~\n\t").unwrap(),
            vec![Key(Enter), Key(Enter), Key(Tab)]
        );
    }

    #[test]
    fn modifiers_apply_to_the_next_key_or_group() {
        assert_eq!(parse("^a").unwrap(), vec![Down(Ctrl), Char('a'), Up(Ctrl)]);
        assert_eq!(
            parse("^{END}x").unwrap(),
            vec![Down(Ctrl), Key(End), Up(Ctrl), Char('x')]
        );
        assert_eq!(
            parse("^+{TAB 2}").unwrap(),
            vec![
                Down(Ctrl),
                Down(Shift),
                Key(Tab),
                Key(Tab),
                Up(Shift),
                Up(Ctrl)
            ]
        );
        assert_eq!(
            parse("+(ab)c").unwrap(),
            vec![Down(Shift), Char('a'), Char('b'), Up(Shift), Char('c')]
        );
        assert_eq!(
            parse("(^a%b)").unwrap(),
            vec![
                Down(Ctrl),
                Char('a'),
                Up(Ctrl),
                Down(Alt),
                Char('b'),
                Up(Alt)
            ]
        );
        assert_eq!(
            parse("{VK_CONTROL down}c{VK_CONTROL up}{VK_LWIN}").unwrap(),
            vec![Down(Ctrl), Char('c'), Up(Ctrl), Down(Super), Up(Super)]
        );
    }

    #[test]
    fn literals_and_escape_round_trip() {
        assert_eq!(
            parse("{+}{^}{%}{~}{{}{}}{(}{)}").unwrap(),
            "+^%~{}()".chars().map(Char).collect::<Vec<_>>()
        );
        let text = "a+b^c%d(e)f~g{h}\nx\ty";
        let typed: String = parse(&escape_text(text))
            .unwrap()
            .iter()
            .map(|k| match k {
                Char(c) => *c,
                Key(Enter) => '\n',
                Key(Tab) => '\t',
                _ => '?',
            })
            .collect();
        assert_eq!(typed, text);
    }

    #[test]
    fn errors_say_where_and_what_to_write() {
        assert!(
            parse("{NOPE}")
                .unwrap_err()
                .0
                .starts_with("Unknown key '{NOPE}' at position 0. Named keys: {ENTER}")
        );
        assert_eq!(
            parse("ab{ENTER").unwrap_err().0,
            "Unclosed '{' at position 2 in the keys; write named keys as {ENTER} or {TAB 2} and a literal brace as {{}."
        );
        assert_eq!(
            parse("{TAB x}").unwrap_err().0,
            "'{TAB x}' at position 0: the repeat count must be a number, as in {TAB 2}."
        );
        assert!(
            parse("a^")
                .unwrap_err()
                .0
                .starts_with("A modifier (^, + or %) has no key")
        );
        assert!(
            parse("(a^)")
                .unwrap_err()
                .0
                .starts_with("A modifier (^, + or %) has no key")
        );
        assert_eq!(
            parse("a)").unwrap_err().0,
            "Unmatched ')' at position 1 in the keys; type a literal parenthesis as {)}."
        );
        assert!(
            parse("^(a(b))")
                .unwrap_err()
                .0
                .starts_with("Nested '(' at position 3")
        );
        assert!(parse("+(ab").unwrap_err().0.starts_with("Unclosed '('"));
        assert!(
            parse("{F25}")
                .unwrap_err()
                .0
                .starts_with("Unknown key '{F25}'")
        );
        assert!(
            parse("{VK_SHIFT sideways}")
                .unwrap_err()
                .0
                .starts_with("Unknown key")
        );
        assert_eq!(
            parse("{TAB 5000}").unwrap_err().0,
            "The keys ask for more than 2000 key presses; send them in smaller parts."
        );
        assert!(parse(&"x".repeat(2001)).is_err());
        assert_eq!(parse(&"x".repeat(2000)).unwrap().len(), 2000);
    }
}
