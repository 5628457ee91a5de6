//! X keysyms and modifier names for the key syntax the desktop and the browser share
//! ([`deft_protocol::keys`]).

pub use deft_protocol::keys::{KeyStep, Modifier, NamedKey, copies, parse};

/// The X keysym of named key `k`.
pub fn keysym(k: NamedKey) -> u32 {
    match k {
        NamedKey::Enter => 0xff0d,
        NamedKey::Tab => 0xff09,
        NamedKey::Escape => 0xff1b,
        NamedKey::Backspace => 0xff08,
        NamedKey::Delete => 0xffff,
        NamedKey::Insert => 0xff63,
        NamedKey::Home => 0xff50,
        NamedKey::End => 0xff57,
        NamedKey::PageUp => 0xff55,
        NamedKey::PageDown => 0xff56,
        NamedKey::ArrowUp => 0xff52,
        NamedKey::ArrowDown => 0xff54,
        NamedKey::ArrowLeft => 0xff51,
        NamedKey::ArrowRight => 0xff53,
        NamedKey::CapsLock => 0xffe5,
        NamedKey::PrintScreen => 0xff61,
        NamedKey::Menu => 0xff67,
        NamedKey::F(n) => 0xffbe + u32::from(n) - 1,
        // The XF86 keysyms of the device buttons.
        NamedKey::GoBack => 0x1008_ff26,
        NamedKey::GoHome => 0x1008_ff18,
        NamedKey::AppSwitch => 0x1008_ff7f,
        NamedKey::VolumeUp => 0x1008_ff13,
        NamedKey::VolumeDown => 0x1008_ff11,
        NamedKey::VolumeMute => 0x1008_ff12,
        NamedKey::Power => 0x1008_ff2a,
        NamedKey::WakeUp => 0x1008_ff2b,
        NamedKey::Sleep => 0x1008_ff2f,
    }
}

/// The name the X keyboard map knows modifier `m` by (see `x11::X::modifier`).
pub fn modifier_name(m: Modifier) -> &'static str {
    match m {
        Modifier::Ctrl => "control",
        Modifier::Shift => "shift",
        Modifier::Alt => "alt",
        Modifier::Super => "super",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_keys_map_to_keysyms() {
        assert_eq!(keysym(NamedKey::F(1)), 0xffbe);
        assert_eq!(keysym(NamedKey::F(24)), 0xffd5);
        assert_eq!(keysym(NamedKey::PageDown), 0xff56);
        assert_eq!(modifier_name(Modifier::Ctrl), "control");
    }

    #[test]
    fn the_shared_syntax_parses_to_keysyms() {
        assert_eq!(
            parse("{ENTER}").unwrap(),
            vec![KeyStep::Key(NamedKey::Enter)]
        );
        assert_eq!(keysym(NamedKey::Enter), 0xff0d);
    }
}
