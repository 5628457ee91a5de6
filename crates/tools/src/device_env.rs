//! The environment of the programs a device starts (its apps, LibreOffice and its UNO helper,
//! the desktop's own parts): the desktop session's variables — display, buses, home and XDG
//! folders — come from the device, never from whoever started deft. A managed desktop defines
//! them all (its state); a desktop taken from the environment passes on the caller's own.
//!
//! [`apply`] is the one place a spawn site gets them: it takes deft's secrets
//! ([`crate::secrets::scrub_env`]) and every session variable out of what the child would
//! inherit and sets the device's. It only configures the `Command`; the spawn stays the
//! caller's.

use std::process::Command;
use std::sync::Arc;

/// Where a device's programs get their environment from, asked at each start (a managed
/// desktop's may change when it restarts).
pub type Source = Arc<dyn Fn() -> Vec<(String, String)> + Send + Sync>;

/// The variables that say which desktop session a program belongs to: its display (X or
/// Wayland) and X authority, the session and accessibility buses, the accessibility switch, the
/// home and XDG folders, and what names the session. A program a device starts gets the
/// device's values of these, or none.
pub const SESSION_VARS: &[&str] = &[
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "DBUS_SESSION_BUS_ADDRESS",
    "AT_SPI_BUS_ADDRESS",
    "NO_AT_BRIDGE",
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "XDG_SESSION_TYPE",
    "XDG_SESSION_ID",
    "XDG_SESSION_CLASS",
    "XDG_SESSION_DESKTOP",
    "XDG_CURRENT_DESKTOP",
    "XDG_SEAT",
    "XDG_VTNR",
    "DESKTOP_SESSION",
    "SESSION_MANAGER",
    "GDK_BACKEND",
    "QT_QPA_PLATFORM",
];

/// The session variables a desktop taken from the caller's own environment passes on to the
/// programs it starts: all of [`SESSION_VARS`] but the accessibility switch (`NO_AT_BRIDGE=1`
/// would hide the programs' controls from deft).
pub fn carried_from_caller(name: &str) -> bool {
    name != "NO_AT_BRIDGE" && SESSION_VARS.contains(&name)
}

/// Gives `cmd` the device's environment `env`: deft's secrets and every [`SESSION_VARS`]
/// variable it would inherit are removed, then `env` is set (it may also set others, such as the
/// accessibility switches).
pub fn apply<'c>(cmd: &'c mut Command, env: &[(String, String)]) -> &'c mut Command {
    crate::secrets::scrub_env(cmd);
    for name in SESSION_VARS {
        cmd.env_remove(name);
    }
    cmd.envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    fn set(cmd: &Command, name: &str) -> Option<Option<String>> {
        cmd.get_envs()
            .find(|(k, _)| *k == OsStr::new(name))
            .map(|(_, v)| v.map(|v| v.to_string_lossy().into_owned()))
    }

    #[test]
    fn the_devices_session_replaces_the_callers() {
        let mut cmd = Command::new("true");
        cmd.env("DISPLAY", ":99")
            .env("WAYLAND_DISPLAY", "wayland-0");
        let env = vec![
            ("DISPLAY".to_owned(), ":3".to_owned()),
            ("HOME".to_owned(), "/srv/desk/home".to_owned()),
            ("GTK_A11Y".to_owned(), "atspi".to_owned()),
        ];
        apply(&mut cmd, &env);
        assert_eq!(set(&cmd, "DISPLAY"), Some(Some(":3".into())));
        assert_eq!(set(&cmd, "HOME"), Some(Some("/srv/desk/home".into())));
        assert_eq!(set(&cmd, "GTK_A11Y"), Some(Some("atspi".into())));
        // Whatever the caller's session had and the device does not define is taken out.
        for gone in [
            "WAYLAND_DISPLAY",
            "DBUS_SESSION_BUS_ADDRESS",
            "XDG_RUNTIME_DIR",
        ] {
            assert_eq!(set(&cmd, gone), Some(None), "{gone}");
        }
        // Everything else is inherited as it is.
        assert_eq!(set(&cmd, "PATH"), None);
    }

    #[test]
    fn the_callers_own_desktop_passes_its_session_on_but_not_the_bridge_switch() {
        assert!(carried_from_caller("DISPLAY"));
        assert!(carried_from_caller("XDG_RUNTIME_DIR"));
        assert!(!carried_from_caller("NO_AT_BRIDGE"));
        assert!(!carried_from_caller("PATH"));
    }
}
