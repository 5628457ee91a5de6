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

/// A phone and, when it is ready, its device.
#[derive(Clone)]
pub(crate) struct PhoneEntry {
    pub(crate) seen: PhoneSeen,
    pub(crate) device: Option<Device>,
}

/// Replaces `phones` with `seen`: a ready phone keeps the device it had, a phone becoming ready
/// gets one from `make` (an error: it is listed with the error as its note, not usable), the
/// rest have none.
pub(crate) fn update(
    phones: &mut BTreeMap<String, PhoneEntry>,
    seen: Vec<PhoneSeen>,
    make: &dyn Fn(&str) -> Result<Device, String>,
) {
    let mut next = BTreeMap::new();
    for mut s in seen {
        let kept = phones
            .remove(&s.serial)
            .and_then(|old| old.device)
            .filter(|_| s.ready());
        let device = match kept {
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
        next.insert(s.serial.clone(), PhoneEntry { seen: s, device });
    }
    for (serial, gone) in std::mem::replace(phones, next) {
        if gone.device.is_some() {
            tracing::info!(device = %serial, "phone gone");
        }
    }
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
        update(
            &mut phones,
            vec![seen("a", "device"), seen("b", "device")],
            &make,
        );
        assert!(
            phones["a"].device.as_ref().unwrap().is_busy(),
            "the same device"
        );
        assert!(phones["b"].device.is_some(), "b became ready");
        update(&mut phones, vec![seen("b", "offline")], &make);
        assert!(!phones.contains_key("a"));
        assert!(phones["b"].device.is_none());
        update(&mut phones, vec![seen("broken", "device")], &make);
        assert!(phones["broken"].device.is_none());
        assert_eq!(
            phones["broken"].seen.note.as_deref(),
            Some("no android profile")
        );
    }
}
