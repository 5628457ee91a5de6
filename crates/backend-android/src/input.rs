//! What the phone is told to do, as `input` commands: taps, swipes, long presses, key events and
//! text. `keyboard_input`'s key syntax (shared with the desktop and the browser) becomes runs of
//! text and Android key events; `input text` takes printable ASCII only, so other characters
//! are a run of their own that the backend types another way (an input method).

use deft_protocol::keys::{KeyStep, Modifier, NamedKey};

/// One thing to do on the phone's screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PhoneInput {
    /// Printable ASCII text, typed by `input text`.
    Text(String),
    /// Text `input text` cannot type (non-ASCII, control characters).
    Unicode(String),
    /// A key event (an Android `KEYCODE_*` number).
    Key(u32),
    /// Keys pressed together (modifiers first), `input keycombination` (Android 13+).
    Combination(Vec<u32>),
}

/// A key of deft's syntax that a phone has no key for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoSuchKey(pub String);

/// Android key codes (`android.view.KeyEvent`).
pub mod keycode {
    /// Home button.
    pub const HOME: u32 = 3;
    /// Back button.
    pub const BACK: u32 = 4;
    /// Arrow up.
    pub const DPAD_UP: u32 = 19;
    /// Arrow down.
    pub const DPAD_DOWN: u32 = 20;
    /// Arrow left.
    pub const DPAD_LEFT: u32 = 21;
    /// Arrow right.
    pub const DPAD_RIGHT: u32 = 22;
    /// Volume up.
    pub const VOLUME_UP: u32 = 24;
    /// Volume down.
    pub const VOLUME_DOWN: u32 = 25;
    /// Power button.
    pub const POWER: u32 = 26;
    /// The letter A (B … Z follow).
    pub const A: u32 = 29;
    /// Left Alt.
    pub const ALT_LEFT: u32 = 57;
    /// Left Shift.
    pub const SHIFT_LEFT: u32 = 59;
    /// Tab.
    pub const TAB: u32 = 61;
    /// Space.
    pub const SPACE: u32 = 62;
    /// Enter.
    pub const ENTER: u32 = 66;
    /// Backspace.
    pub const DEL: u32 = 67;
    /// Menu.
    pub const MENU: u32 = 82;
    /// Page up.
    pub const PAGE_UP: u32 = 92;
    /// Page down.
    pub const PAGE_DOWN: u32 = 93;
    /// Escape.
    pub const ESCAPE: u32 = 111;
    /// Delete (forward).
    pub const FORWARD_DEL: u32 = 112;
    /// Left Ctrl.
    pub const CTRL_LEFT: u32 = 113;
    /// Caps Lock.
    pub const CAPS_LOCK: u32 = 115;
    /// Left Meta (Super).
    pub const META_LEFT: u32 = 117;
    /// Print Screen (SysRq).
    pub const SYSRQ: u32 = 120;
    /// Home of a line.
    pub const MOVE_HOME: u32 = 122;
    /// End of a line.
    pub const MOVE_END: u32 = 123;
    /// Insert.
    pub const INSERT: u32 = 124;
    /// F1 (F2 … F12 follow).
    pub const F1: u32 = 131;
    /// Mute the speaker.
    pub const VOLUME_MUTE: u32 = 164;
    /// Recent apps.
    pub const APP_SWITCH: u32 = 187;
    /// Sleep (screen off).
    pub const SLEEP: u32 = 223;
    /// Wake up (screen on).
    pub const WAKEUP: u32 = 224;
    /// The digit 0 (1 … 9 follow).
    pub const DIGIT_0: u32 = 7;
}

/// The key steps of `keyboard_input` as phone input: characters gathered into text runs, named
/// keys and modified keys as key events.
pub fn plan(steps: &[KeyStep]) -> Result<Vec<PhoneInput>, NoSuchKey> {
    let mut out: Vec<PhoneInput> = Vec::new();
    let mut held: Vec<Modifier> = Vec::new();
    for step in steps {
        match *step {
            KeyStep::Down(m) => held.push(m),
            KeyStep::Up(m) => held.retain(|h| *h != m),
            KeyStep::Char(c) if held.is_empty() => push_char(&mut out, c),
            KeyStep::Char(c) => {
                let key = char_key(c).ok_or_else(|| NoSuchKey(c.to_string()))?;
                out.push(combination(&held, key));
            }
            KeyStep::Key(k) => {
                let key = named_key(k)?;
                out.push(if held.is_empty() {
                    PhoneInput::Key(key)
                } else {
                    combination(&held, key)
                });
            }
        }
    }
    Ok(out)
}

fn push_char(out: &mut Vec<PhoneInput>, c: char) {
    match c {
        '\n' | '\r' => out.push(PhoneInput::Key(keycode::ENTER)),
        '\t' => out.push(PhoneInput::Key(keycode::TAB)),
        c if c.is_ascii_graphic() || c == ' ' => match out.last_mut() {
            Some(PhoneInput::Text(run)) => run.push(c),
            _ => out.push(PhoneInput::Text(c.to_string())),
        },
        c => match out.last_mut() {
            Some(PhoneInput::Unicode(run)) => run.push(c),
            _ => out.push(PhoneInput::Unicode(c.to_string())),
        },
    }
}

fn combination(held: &[Modifier], key: u32) -> PhoneInput {
    let mut keys: Vec<u32> = held.iter().map(|m| modifier_key(*m)).collect();
    keys.push(key);
    PhoneInput::Combination(keys)
}

fn modifier_key(m: Modifier) -> u32 {
    match m {
        Modifier::Ctrl => keycode::CTRL_LEFT,
        Modifier::Shift => keycode::SHIFT_LEFT,
        Modifier::Alt => keycode::ALT_LEFT,
        Modifier::Super => keycode::META_LEFT,
    }
}

/// The key of a letter, digit or space pressed with a modifier (`^a`).
fn char_key(c: char) -> Option<u32> {
    match c.to_ascii_lowercase() {
        l @ 'a'..='z' => Some(keycode::A + (l as u32 - 'a' as u32)),
        d @ '0'..='9' => Some(keycode::DIGIT_0 + (d as u32 - '0' as u32)),
        ' ' => Some(keycode::SPACE),
        _ => None,
    }
}

fn named_key(k: NamedKey) -> Result<u32, NoSuchKey> {
    Ok(match k {
        NamedKey::Enter => keycode::ENTER,
        NamedKey::Tab => keycode::TAB,
        NamedKey::Escape => keycode::ESCAPE,
        NamedKey::Backspace => keycode::DEL,
        NamedKey::Delete => keycode::FORWARD_DEL,
        NamedKey::Insert => keycode::INSERT,
        NamedKey::Home => keycode::MOVE_HOME,
        NamedKey::End => keycode::MOVE_END,
        NamedKey::PageUp => keycode::PAGE_UP,
        NamedKey::PageDown => keycode::PAGE_DOWN,
        NamedKey::ArrowUp => keycode::DPAD_UP,
        NamedKey::ArrowDown => keycode::DPAD_DOWN,
        NamedKey::ArrowLeft => keycode::DPAD_LEFT,
        NamedKey::ArrowRight => keycode::DPAD_RIGHT,
        NamedKey::CapsLock => keycode::CAPS_LOCK,
        NamedKey::PrintScreen => keycode::SYSRQ,
        NamedKey::Menu => keycode::MENU,
        NamedKey::F(n @ 1..=12) => keycode::F1 + u32::from(n) - 1,
        NamedKey::F(n) => return Err(NoSuchKey(format!("F{n}"))),
        NamedKey::GoBack => keycode::BACK,
        NamedKey::GoHome => keycode::HOME,
        NamedKey::AppSwitch => keycode::APP_SWITCH,
        NamedKey::VolumeUp => keycode::VOLUME_UP,
        NamedKey::VolumeDown => keycode::VOLUME_DOWN,
        NamedKey::VolumeMute => keycode::VOLUME_MUTE,
        NamedKey::Power => keycode::POWER,
        NamedKey::WakeUp => keycode::WAKEUP,
        NamedKey::Sleep => keycode::SLEEP,
    })
}

/// The argument of `input text` for printable ASCII `text`: spaces as `%s` (how `input text`
/// reads a space). The command still goes through the device's shell: quote it there.
pub fn input_text_arg(text: &str) -> String {
    text.replace(' ', "%s")
}

#[cfg(test)]
mod tests {
    use super::PhoneInput::*;
    use super::*;
    use deft_protocol::keys::parse;

    #[test]
    fn text_runs_keys_and_combinations() {
        let planned = plan(&parse("Hi there{ENTER}^a{DELETE}café{TAB 2}+{TAB}").unwrap()).unwrap();
        assert_eq!(
            planned,
            vec![
                Text("Hi there".into()),
                Key(keycode::ENTER),
                Combination(vec![keycode::CTRL_LEFT, keycode::A]),
                Key(keycode::FORWARD_DEL),
                Text("caf".into()),
                Unicode("é".into()),
                Key(keycode::TAB),
                Key(keycode::TAB),
                Combination(vec![keycode::SHIFT_LEFT, keycode::TAB]),
            ]
        );
        assert_eq!(
            plan(&parse("苏州\nx").unwrap()).unwrap(),
            vec![
                Unicode("苏州".into()),
                Key(keycode::ENTER),
                Text("x".into())
            ]
        );
    }

    #[test]
    fn keys_a_phone_lacks_are_named() {
        assert_eq!(plan(&parse("{F13}").unwrap()), Err(NoSuchKey("F13".into())));
        assert_eq!(plan(&parse("^é").unwrap()), Err(NoSuchKey("é".into())));
        assert_eq!(plan(&parse("{F12}").unwrap()), Ok(vec![Key(142)]));
        assert_eq!(
            plan(&parse("{GO_BACK}{GO_HOME}{RECENTS}{VOLUME_UP}{POWER}{WAKEUP}{SLEEP}").unwrap()),
            Ok(vec![
                Key(4),
                Key(3),
                Key(187),
                Key(24),
                Key(26),
                Key(224),
                Key(223)
            ])
        );
    }

    #[test]
    fn input_text_spells_spaces_its_way() {
        assert_eq!(input_text_arg("a b  c"), "a%sb%s%sc");
    }
}
