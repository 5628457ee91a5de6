//! The phones this server holds: every phone its adb server lists, kept current by the caller
//! (`deft serve` follows `host:track-devices`). A ready phone (`device`) is a device of the
//! `android` profile; a phone in another state (`unauthorized`, `offline` …) is listed with its
//! state and what to do, and cannot be picked. A phone that stays keeps its device — its busy
//! flag and its tool-server session — when the list changes around it.

use std::collections::BTreeMap;

use deft_tools::devices::Device;

/// One phone as the adb server lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneSeen {
    /// Its serial (the device id).
    pub serial: String,
    /// Its adb state: `device` when ready.
    pub state: String,
    /// `Pixel 7 · Android 14`, when known.
    pub label: Option<String>,
    /// What a person should do when it is not ready.
    pub note: Option<String>,
}

impl PhoneSeen {
    /// Whether it can be used.
    pub fn ready(&self) -> bool {
        self.state == "device"
    }
}

/// A phone that was ready and is not any more: its serial, and its adb state now (`None`: no
/// longer listed at all) with the note that says why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneGone {
    /// Its serial (the device id).
    pub serial: String,
    /// Its adb state now (`offline`, `unauthorized` …); `None` when the adb server no longer
    /// lists it (unplugged, or switched off).
    pub state: Option<String>,
    /// What the listing says about it, when anything.
    pub note: Option<String>,
}

/// A phone and, when it is ready, its device.
#[derive(Clone)]
pub(crate) struct PhoneEntry {
    pub(crate) seen: PhoneSeen,
    pub(crate) device: Option<Device>,
}

/// Replaces `phones` with `seen`: a ready phone keeps the device it had, a phone becoming ready
/// gets one from `make` (an error: it is listed with the error as its note, not usable), the
/// rest have none. Answers the phones that had a device and have none now.
pub(crate) fn update(
    phones: &mut BTreeMap<String, PhoneEntry>,
    seen: Vec<PhoneSeen>,
    make: &dyn Fn(&str) -> Result<Device, String>,
) -> Vec<PhoneGone> {
    let mut next = BTreeMap::new();
    let mut gone = Vec::new();
    for mut s in seen {
        let old = phones.remove(&s.serial).and_then(|old| old.device);
        let had = old.is_some();
        let device = match old.filter(|_| s.ready()) {
            Some(d) => Some(d),
            None if s.ready() => match make(&s.serial) {
                Ok(d) => Some(d),
                Err(e) => {
                    s.note = Some(e);
                    None
                }
            },
            None => None,
        };
        if had && device.is_none() {
            tracing::info!(device = %s.serial, state = %s.state, "phone no longer ready");
            gone.push(PhoneGone {
                serial: s.serial.clone(),
                state: Some(s.state.clone()),
                note: s.note.clone(),
            });
        }
        next.insert(s.serial.clone(), PhoneEntry { seen: s, device });
    }
    for (serial, left) in std::mem::replace(phones, next) {
        if left.device.is_some() {
            tracing::info!(device = %serial, "phone gone");
            gone.push(PhoneGone {
                serial,
                state: None,
                note: None,
            });
        }
    }
    gone
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use deft_tools::LocalDispatcher;

    fn seen(serial: &str, state: &str) -> PhoneSeen {
        PhoneSeen {
            serial: serial.into(),
            state: state.into(),
            label: None,
            note: None,
        }
    }

    fn make(serial: &str) -> Result<Device, String> {
        if serial == "broken" {
            return Err("no android profile".into());
        }
        let table = Arc::new(deft_tools::table::RoutingTable::builtin());
        let builtins = Arc::new(deft_tools::builtin::BuiltinRegistry::new());
        Ok(Device::new(
            serial,
            "android",
            Arc::new(LocalDispatcher::new(table, builtins)),
        ))
    }

    #[test]
    fn a_phone_that_stays_keeps_its_device_and_one_not_ready_has_none() {
        let mut phones = BTreeMap::new();
        update(
            &mut phones,
            vec![seen("a", "device"), seen("b", "unauthorized")],
            &make,
        );
        let a = phones["a"].device.clone().unwrap();
        let _busy = a.try_reserve().unwrap();
        assert!(phones["b"].device.is_none());
        let stayed = update(
            &mut phones,
            vec![seen("a", "device"), seen("b", "device")],
            &make,
        );
        assert_eq!(stayed, [], "nothing left");
        assert!(
            phones["a"].device.as_ref().unwrap().is_busy(),
            "the same device"
        );
        assert!(phones["b"].device.is_some(), "b became ready");
        let left = update(&mut phones, vec![seen("b", "offline")], &make);
        let gone = |serial: &str, state: Option<&str>| PhoneGone {
            serial: serial.into(),
            state: state.map(str::to_owned),
            note: None,
        };
        assert_eq!(
            left,
            [gone("b", Some("offline")), gone("a", None)],
            "both were ready: one went offline, the other away"
        );
        assert!(!phones.contains_key("a"));
        assert!(phones["b"].device.is_none());
        let none = update(&mut phones, vec![seen("broken", "device")], &make);
        assert_eq!(none, [], "b was not ready, broken never was");
        assert!(phones["broken"].device.is_none());
        assert_eq!(
            phones["broken"].seen.note.as_deref(),
            Some("no android profile")
        );
    }
}
