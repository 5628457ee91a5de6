//! CDP key events for the key syntax the desktop and the browser share
//! ([`deft_protocol::keys`]): DOM `key` / `code` names, Windows virtual key codes and the
//! modifier bit mask of `Input.dispatchKeyEvent`.

pub use deft_protocol::keys::{KeyStep, Modifier, NamedKey, parse};

/// How CDP names a key: DOM `key` and `code`, the Windows virtual key code, and the text it
/// types (Enter types `"\r"`; other named keys none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomKey {
    /// DOM `KeyboardEvent.key`, e.g. `ArrowUp`.
    pub key: String,
    /// DOM `KeyboardEvent.code`, e.g. `ArrowUp`, `ControlLeft`.
    pub code: String,
    /// Windows virtual key code, e.g. 38.
    pub vk: i64,
    /// Text the key inserts, if any.
    pub text: Option<&'static str>,
}

fn dom(key: &str, vk: i64, text: Option<&'static str>) -> DomKey {
    DomKey {
        key: key.to_owned(),
        code: key.to_owned(),
        vk,
        text,
    }
}

/// The CDP names of named key `k`.
pub fn dom_key(k: NamedKey) -> DomKey {
    match k {
        NamedKey::Enter => dom("Enter", 13, Some("\r")),
        NamedKey::Tab => dom("Tab", 9, None),
        NamedKey::Escape => dom("Escape", 27, None),
        NamedKey::Backspace => dom("Backspace", 8, None),
        NamedKey::Delete => dom("Delete", 46, None),
        NamedKey::Insert => dom("Insert", 45, None),
        NamedKey::Home => dom("Home", 36, None),
        NamedKey::End => dom("End", 35, None),
        NamedKey::PageUp => dom("PageUp", 33, None),
        NamedKey::PageDown => dom("PageDown", 34, None),
        NamedKey::ArrowUp => dom("ArrowUp", 38, None),
        NamedKey::ArrowDown => dom("ArrowDown", 40, None),
        NamedKey::ArrowLeft => dom("ArrowLeft", 37, None),
        NamedKey::ArrowRight => dom("ArrowRight", 39, None),
        NamedKey::CapsLock => dom("CapsLock", 20, None),
        NamedKey::PrintScreen => dom("PrintScreen", 44, None),
        NamedKey::Menu => DomKey {
            key: "ContextMenu".into(),
            code: "ContextMenu".into(),
            vk: 93,
            text: None,
        },
        NamedKey::F(n) => dom(&format!("F{n}"), 111 + i64::from(n), None),
        NamedKey::GoBack => dom("BrowserBack", 166, None),
        NamedKey::GoHome => dom("BrowserHome", 172, None),
        NamedKey::AppSwitch => dom("LaunchApplication1", 182, None),
        NamedKey::VolumeUp => dom("AudioVolumeUp", 175, None),
        NamedKey::VolumeDown => dom("AudioVolumeDown", 174, None),
        NamedKey::VolumeMute => dom("AudioVolumeMute", 173, None),
        NamedKey::Power => dom("Power", 0, None),
        NamedKey::WakeUp => dom("WakeUp", 0, None),
        NamedKey::Sleep => dom("Sleep", 95, None),
    }
}

/// The CDP names of modifier `m` (its left-hand key).
pub fn modifier_key(m: Modifier) -> DomKey {
    let (key, code, vk) = match m {
        Modifier::Ctrl => ("Control", "ControlLeft", 17),
        Modifier::Shift => ("Shift", "ShiftLeft", 16),
        Modifier::Alt => ("Alt", "AltLeft", 18),
        Modifier::Super => ("Meta", "MetaLeft", 91),
    };
    DomKey {
        key: key.into(),
        code: code.into(),
        vk,
        text: None,
    }
}

/// Modifier `m`'s bit in CDP's mask: Alt 1, Ctrl 2, Meta 4, Shift 8.
pub fn modifier_bit(m: Modifier) -> u8 {
    match m {
        Modifier::Alt => 1,
        Modifier::Ctrl => 2,
        Modifier::Super => 4,
        Modifier::Shift => 8,
    }
}

/// DOM `code` and Windows virtual key code of a character's key (letters, digits, space);
/// other characters have none and are sent by their text alone.
pub fn char_code(c: char) -> (String, i64) {
    match c {
        'a'..='z' => (
            format!("Key{}", c.to_ascii_uppercase()),
            c.to_ascii_uppercase() as i64,
        ),
        'A'..='Z' => (format!("Key{c}"), c as i64),
        '0'..='9' => (format!("Digit{c}"), c as i64),
        ' ' => ("Space".into(), 32),
        _ => (String::new(), 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_key_syntax_maps_to_dom_names() {
        let steps = parse("^a{F5}").expect("valid keys");
        assert_eq!(steps[3], KeyStep::Key(NamedKey::F(5)));
        assert_eq!(dom_key(NamedKey::F(5)).key, "F5");
    }

    #[test]
    fn named_keys_have_dom_names_and_codes() {
        assert_eq!(dom_key(NamedKey::ArrowUp).key, "ArrowUp");
        assert_eq!(dom_key(NamedKey::F(12)).vk, 123);
        assert_eq!(dom_key(NamedKey::Enter).text, Some("\r"));
        assert_eq!(modifier_key(Modifier::Ctrl).code, "ControlLeft");
        let all = [
            Modifier::Alt,
            Modifier::Ctrl,
            Modifier::Super,
            Modifier::Shift,
        ];
        assert_eq!(all.iter().map(|m| modifier_bit(*m)).sum::<u8>(), 15);
        assert_eq!(char_code('q'), ("KeyQ".into(), 81));
    }
}
