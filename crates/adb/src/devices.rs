//! The device list (`host:devices-l`): one line per device, `SERIAL STATE` then `key:value`
//! fields, read from the right because the state may hold spaces and keys may be missing — and what
//! a person does about each state.

use crate::texts;

/// One device the adb server knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    /// Its serial (`HOST:PORT` for a network device).
    pub serial: String,
    /// `device`, `offline`, `unauthorized`, `authorizing`, `no permissions (…)`, …
    pub state: String,
    /// `product:` (the build's product name).
    pub product: Option<String>,
    /// `model:` (the server replaces characters other than letters and digits with `_`).
    pub model: Option<String>,
    /// `device:` (the build's device name).
    pub device: Option<String>,
    /// `usb:` (the USB path, for USB devices).
    pub usb: Option<String>,
    /// `transport_id:` (the server's id of this connection).
    pub transport_id: Option<u64>,
}

impl Device {
    /// Whether the server can run commands on it (state `device`).
    pub fn is_ready(&self) -> bool {
        self.state == "device"
    }

    /// What a person does to make it usable, for every state but `device` (`None`): accept
    /// the USB debugging prompt, reconnect, install udev rules, wait, reboot into Android.
    pub fn state_advice(&self) -> Option<String> {
        texts::state_advice(&self.state)
    }
}

/// Reads the text of `host:devices-l` (lines that do not hold a serial and a state are skipped).
pub fn parse_devices_l(text: &str) -> Vec<Device> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Device> {
    let mut words: Vec<&str> = line.split_whitespace().collect();
    if words.len() < 2 {
        return None;
    }
    let serial = words.remove(0).to_owned();
    let mut device = Device {
        serial,
        state: String::new(),
        product: None,
        model: None,
        device: None,
        usb: None,
        transport_id: None,
    };
    while words.len() > 1 {
        let Some(last) = words.last() else { break };
        let Some((key, value)) = last.split_once(':') else {
            break;
        };
        match key {
            "product" => device.product = Some(value.to_owned()),
            "model" => device.model = Some(value.to_owned()),
            "device" => device.device = Some(value.to_owned()),
            "usb" => device.usb = Some(value.to_owned()),
            "transport_id" => device.transport_id = value.parse().ok(),
            _ => break,
        }
        words.pop();
    }
    device.state = words.join(" ");
    Some(device)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_from_the_right() {
        let text = "127.0.0.1:27183        device product:sdk_gphone model:Pixel_Double device:double transport_id:1\n\
                    0123456789ABCDEF       unauthorized usb:1-1 transport_id:12\n\
                    emulator-5554          offline transport_id:3\n\
                    R58M                   no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html] usb:1-2 transport_id:4\n";
        let devices = parse_devices_l(text);
        assert_eq!(devices.len(), 4);
        assert_eq!(
            devices[0],
            Device {
                serial: "127.0.0.1:27183".into(),
                state: "device".into(),
                product: Some("sdk_gphone".into()),
                model: Some("Pixel_Double".into()),
                device: Some("double".into()),
                usb: None,
                transport_id: Some(1),
            }
        );
        assert_eq!(devices[1].state, "unauthorized");
        assert_eq!(devices[1].usb.as_deref(), Some("1-1"));
        assert_eq!(devices[1].model, None);
        assert_eq!(
            (devices[2].state.as_str(), devices[2].transport_id),
            ("offline", Some(3))
        );
        assert!(
            devices[3]
                .state
                .starts_with("no permissions (missing udev rules?")
        );
        assert!(devices[3].state.ends_with("device.html]"));
        assert_eq!(devices[3].transport_id, Some(4));
        assert!(!devices[1].is_ready());
        assert!(devices[0].is_ready());
        assert_eq!(devices[0].state_advice(), None);
        assert_eq!(
            devices[1].state_advice(),
            texts::state_advice("unauthorized")
        );
        assert!(
            devices[3]
                .state_advice()
                .is_some_and(|advice| advice.contains("udev rules")),
            "{:?}",
            devices[3].state_advice()
        );
        assert!(parse_devices_l("").is_empty());
        assert!(parse_devices_l("garbage\n").is_empty());
    }
}
