//! Every text this crate shows a person or a model: its errors. They say what happened and what
//! to do next; keep them here, stable, and tested verbatim.

// ---- the codec ----------------------------------------------------------------------------------

/// A transport header whose magic is not its command's complement.
pub(crate) fn bad_magic(command: u32, magic: u32) -> String {
    format!(
        "a transport message has magic {magic:#010x} for command {command:#010x} (it must be the \
         command's complement): the other side does not speak adb's protocol"
    )
}

/// A length field over its limit.
pub(crate) fn oversize(what: &str, length: u64, limit: u64) -> String {
    format!(
        "a {what} announces {length} bytes, more than the {limit} allowed: the other side does \
         not speak adb's protocol"
    )
}

/// An id the codec does not know.
pub(crate) fn unknown_id(what: &str, id: &str) -> String {
    format!("an unknown {what} id '{id}': the other side does not speak adb's protocol")
}

// ---- reaching the adb server ----------------------------------------------------------------------

/// `ANDROID_ADB_SERVER_PORT` is not a port.
pub(crate) fn bad_port(value: &str) -> String {
    format!(
        "ANDROID_ADB_SERVER_PORT is '{value}', not a port number (1-65535): fix it, or unset it \
         to use the default 5037"
    )
}

/// No server answers and there is no `adb` to start one.
pub(crate) fn not_installed(port: u16) -> String {
    format!(
        "no adb server answers on 127.0.0.1:{port} and the adb program is not on PATH: install \
         adb (Debian: apt-get install adb), or start an adb server on port {port}"
    )
}

/// No server answers and `adb start-server` did not bring one up.
pub(crate) fn start_failed(port: u16, detail: &str) -> String {
    format!(
        "no adb server answers on 127.0.0.1:{port}, and `adb start-server` did not start one \
         ({detail}): run `adb -P {port} start-server` yourself and read what it says"
    )
}

/// The connection to the server failed.
pub(crate) fn io(port: u16, what: &str, cause: &str) -> String {
    format!("the adb server on 127.0.0.1:{port} failed while {what}: {cause}")
}

/// A call took longer than its limit.
pub(crate) fn timeout(what: &str, secs: u64) -> String {
    format!(
        "the adb server did not finish {what} within {secs} s: check that the device still \
         answers (adb devices) and try again"
    )
}

/// The server answered bytes outside its protocol.
pub(crate) fn protocol(port: u16, detail: &str) -> String {
    format!(
        "the adb server on 127.0.0.1:{port} answered outside adb's protocol ({detail}): is \
         something else listening on that port?"
    )
}

// ---- what the server or the device refused ----------------------------------------------------------

/// A `FAIL` answer, passed through.
pub(crate) fn failed(request: &str, message: &str) -> String {
    format!("the adb server refused `{request}`: {message}")
}

/// The serial names no connected device.
pub(crate) fn device_not_found(serial: &str) -> String {
    format!(
        "no device '{serial}' is connected to the adb server: pick a serial from the device \
         list, or connect the device first (adb connect HOST:PORT)"
    )
}

/// The device is there but not usable: its state and what to do.
pub(crate) fn device_state(serial: &str, state: &str) -> String {
    let next = state_advice(state).unwrap_or_else(|| "try again".into());
    format!("device '{serial}' is {state}: {next}")
}

/// The device closed the stream it was asked to open.
pub(crate) fn service_refused(serial: &str, service: &str) -> String {
    format!(
        "device '{serial}' refused the service `{service}`: it does not offer it (too old an \
         Android, or a service name it does not know)"
    )
}

/// `host:connect` answered with a failure text.
pub(crate) fn connect_failed(target: &str, message: &str) -> String {
    format!(
        "adb could not connect to {target}: {message} — check that the device listens there \
         (adb tcpip 5555 while it is on USB) and that this machine can reach it"
    )
}

/// A shell command's stream ended before its exit status while the server still answers.
pub(crate) fn phone_disconnected(serial: &str, command: &str) -> String {
    format!(
        "the phone '{serial}' disconnected while running `{command}`; it may have run: reconnect \
         it (check the cable, or `adb connect HOST:PORT` for a network phone), then check what \
         the command did before running it again"
    )
}

/// The server went away while a command ran.
pub(crate) fn server_gone(port: u16, serial: &str, command: &str) -> String {
    format!(
        "the adb server on 127.0.0.1:{port} went away while `{command}` ran on '{serial}': the \
         command may or may not have run; check what it did before running it again (the next \
         call starts the server again if adb is installed)"
    )
}

/// The tracker's connection to the server closed.
pub(crate) fn server_stopped(port: u16) -> String {
    format!(
        "the adb server on 127.0.0.1:{port} stopped: the device list is unknown until it is \
         back; deft reconnects by itself (starting it once if adb is installed)"
    )
}

/// The properties command of `details` failed.
pub(crate) fn properties_failed(serial: &str, exit_code: u8, stderr: &str) -> String {
    // Each of the three `getprop`s says the same: its first line says it.
    let first = stderr
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    format!(
        "device '{serial}' could not read its properties with getprop (exit status {exit_code}: \
         {first}): is it an Android device running its system?"
    )
}

/// A pull answered `FAIL`.
pub(crate) fn pull_failed(serial: &str, path: &str, message: &str) -> String {
    format!("device '{serial}' could not send {path}: {message}")
}

/// An argument a shell command cannot carry.
pub(crate) fn nul_in_argument(index: usize) -> String {
    format!(
        "argument {index} of the command holds a NUL byte, which no device shell command can \
         carry: remove it"
    )
}

// ---- the states of a device, said to a person ------------------------------------------------------

/// An unauthorized phone.
const UNAUTHORIZED: &str = "unlock the phone and accept its 'Allow USB debugging?' prompt (tick \
    'Always allow from this computer'); no prompt? unplug and plug it in again, or revoke the USB \
    debugging authorizations in Developer options — the key the phone is asked to trust is \
    ~/.android/adbkey of the user running the adb server";
/// An offline phone.
const OFFLINE: &str = "reconnect it (unplug and plug in the cable, or run `adb reconnect`; a \
    network phone: `adb connect HOST:PORT` again); if it stays offline, restart the phone";
/// A USB phone this user may not open.
const NO_PERMISSIONS: &str = "this user may not open the phone's USB device: install udev rules \
    for Android phones (Debian: apt-get install android-sdk-platform-tools-common), add the user \
    to the plugdev group, then unplug and plug the phone in again";
/// The server checks its key with the phone.
const AUTHORIZING: &str = "wait a moment: the adb server is checking its key with the phone \
    (unlock the phone if it asks)";
/// The server is still connecting.
const CONNECTING_STATE: &str = "wait a moment: the adb server is still connecting to the phone";

/// What a person does about a device in `state` (`None`: `device`, ready to use).
pub(crate) fn state_advice(state: &str) -> Option<String> {
    let advice = match state {
        "device" => return None,
        "unauthorized" => UNAUTHORIZED,
        "offline" => OFFLINE,
        "authorizing" | "still authorizing" => AUTHORIZING,
        "connecting" | "still connecting" => CONNECTING_STATE,
        _ if state.starts_with("no permissions") => NO_PERMISSIONS,
        "bootloader" | "recovery" | "rescue" | "sideload" => {
            return Some(format!(
                "the phone is in {state} mode, not running Android: reboot it into Android \
                 (adb reboot), then it shows as 'device'"
            ));
        }
        _ => {
            return Some(format!(
                "adb reports the state '{state}', and deft uses a phone only in the state \
                 'device': check the phone and its connection"
            ));
        }
    };
    Some(advice.to_owned())
}

// ---- the parts of the texts above: what the client was doing, which call ---------------------------

/// Connecting to the server.
pub(crate) const CONNECTING: &str = "connecting";
/// Sending a request.
pub(crate) const SENDING_REQUEST: &str = "sending a request";
/// Reading a status or a string.
pub(crate) const READING_ANSWER: &str = "reading the answer";
/// Reading the transport id after `host:tport:`.
pub(crate) const SWITCHING: &str = "switching to the device";
/// Sending the shell's close-stdin packet.
pub(crate) const CLOSING_STDIN: &str = "closing stdin";
/// Reading a command's output.
pub(crate) const READING_OUTPUT: &str = "reading the output";
/// Sending a sync `RECV`.
pub(crate) const ASKING_FILE: &str = "asking for the file";
/// Reading a pulled file.
pub(crate) const READING_FILE: &str = "reading the file";
/// Sending a sync `QUIT`.
pub(crate) const ENDING_TRANSFER: &str = "ending the transfer";
/// Sending a file (sync `SEND`, `DATA`, `DONE`).
pub(crate) const SENDING_FILE: &str = "sending the file";
/// Reading the answer to a push.
pub(crate) const READING_PUSH_ANSWER: &str = "reading the answer to the push";
/// A push whose stream ended before its answer.
pub(crate) const PUSH_CUT: &str = "the connection closed before the phone confirmed the file";
/// A pull whose stream ended before `DONE`.
pub(crate) const FILE_CUT: &str = "the connection closed before the file ended";
/// The device-list call.
pub(crate) const DEVICE_LIST: &str = "the device list";
/// Opening the tracking of the device list.
pub(crate) const TRACKING: &str = "starting to track the device list";

/// A connect call.
pub(crate) fn connecting_to(target: &str) -> String {
    format!("connecting to {target}")
}

/// A disconnect call.
pub(crate) fn disconnecting(target: &str) -> String {
    format!("disconnecting {target}")
}

/// A command on a device.
pub(crate) fn command_on(command: &str, serial: &str) -> String {
    format!("`{command}` on '{serial}'")
}

/// A pull from a device.
pub(crate) fn pushing(path: &str, serial: &str) -> String {
    format!("pushing {path} to '{serial}'")
}

/// A push the phone refused.
pub(crate) fn push_failed(serial: &str, path: &str, message: &str) -> String {
    format!("'{serial}' refused the file {path}: {message}")
}

/// A pull in progress (for the time limit's error).
pub(crate) fn pulling(path: &str, serial: &str) -> String {
    format!("pulling {path} from '{serial}'")
}

/// Bytes where the protocol has something else (`what`: status, length, version, sync answer).
pub(crate) fn unexpected(what: &str, bytes: &[u8]) -> String {
    format!("{what} '{}'", String::from_utf8_lossy(bytes).escape_debug())
}

/// A request longer than the server takes.
pub(crate) fn request_too_long(limit: usize) -> String {
    format!("the request is longer than the {limit} bytes the adb server takes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codec_texts() {
        assert_eq!(
            bad_magic(0x4e584e43, 1),
            "a transport message has magic 0x00000001 for command 0x4e584e43 (it must be the \
             command's complement): the other side does not speak adb's protocol"
        );
        assert_eq!(
            oversize("shell packet", 9, 8),
            "a shell packet announces 9 bytes, more than the 8 allowed: the other side does not \
             speak adb's protocol"
        );
        assert_eq!(
            unknown_id("sync", "XYZW"),
            "an unknown sync id 'XYZW': the other side does not speak adb's protocol"
        );
    }

    #[test]
    fn server_texts() {
        assert_eq!(
            bad_port("x"),
            "ANDROID_ADB_SERVER_PORT is 'x', not a port number (1-65535): fix it, or unset it to \
             use the default 5037"
        );
        assert_eq!(
            not_installed(5037),
            "no adb server answers on 127.0.0.1:5037 and the adb program is not on PATH: install \
             adb (Debian: apt-get install adb), or start an adb server on port 5037"
        );
        assert_eq!(
            start_failed(5037, "exit status: 1"),
            "no adb server answers on 127.0.0.1:5037, and `adb start-server` did not start one \
             (exit status: 1): run `adb -P 5037 start-server` yourself and read what it says"
        );
        assert_eq!(
            io(5037, "reading the answer", "reset"),
            "the adb server on 127.0.0.1:5037 failed while reading the answer: reset"
        );
        assert_eq!(
            timeout("`ls` on 'x'", 30),
            "the adb server did not finish `ls` on 'x' within 30 s: check that the device still \
             answers (adb devices) and try again"
        );
        assert_eq!(
            protocol(5037, "status 'HTTP'"),
            "the adb server on 127.0.0.1:5037 answered outside adb's protocol (status 'HTTP'): is \
             something else listening on that port?"
        );
    }

    #[test]
    fn parts_of_texts() {
        assert_eq!(connecting_to("h:1"), "connecting to h:1");
        assert_eq!(disconnecting("h:1"), "disconnecting h:1");
        assert_eq!(command_on("ls", "p"), "`ls` on 'p'");
        assert_eq!(pulling("/x", "p"), "pulling /x from 'p'");
        assert_eq!(pushing("/x", "p"), "pushing /x to 'p'");
        assert_eq!(
            push_failed("p", "/x", "Permission denied"),
            "'p' refused the file /x: Permission denied"
        );
        assert_eq!(unexpected("status", b"HT\nP"), "status 'HT\\nP'");
        assert_eq!(
            request_too_long(10),
            "the request is longer than the 10 bytes the adb server takes"
        );
        assert_eq!(FILE_CUT, "the connection closed before the file ended");
    }

    #[test]
    fn refusal_texts() {
        assert_eq!(
            failed("host:nope", "unknown host service"),
            "the adb server refused `host:nope`: unknown host service"
        );
        assert_eq!(
            device_not_found("p"),
            "no device 'p' is connected to the adb server: pick a serial from the device list, \
             or connect the device first (adb connect HOST:PORT)"
        );
        assert_eq!(
            device_state("p", "offline"),
            "device 'p' is offline: reconnect it (unplug and plug in the cable, or run `adb \
             reconnect`; a network phone: `adb connect HOST:PORT` again); if it stays offline, \
             restart the phone"
        );
        assert_eq!(
            device_state("p", "still connecting"),
            "device 'p' is still connecting: wait a moment: the adb server is still connecting \
             to the phone"
        );
        assert_eq!(
            service_refused("p", "jdwp:1"),
            "device 'p' refused the service `jdwp:1`: it does not offer it (too old an Android, \
             or a service name it does not know)"
        );
        assert_eq!(
            connect_failed("h:1", "failed to connect to 'h:1': Connection refused"),
            "adb could not connect to h:1: failed to connect to 'h:1': Connection refused — check \
             that the device listens there (adb tcpip 5555 while it is on USB) and that this \
             machine can reach it"
        );
        assert_eq!(
            phone_disconnected("p", "ls"),
            "the phone 'p' disconnected while running `ls`; it may have run: reconnect it (check \
             the cable, or `adb connect HOST:PORT` for a network phone), then check what the \
             command did before running it again"
        );
        assert_eq!(
            server_gone(5037, "p", "ls"),
            "the adb server on 127.0.0.1:5037 went away while `ls` ran on 'p': the command may \
             or may not have run; check what it did before running it again (the next call \
             starts the server again if adb is installed)"
        );
        assert_eq!(
            server_stopped(5037),
            "the adb server on 127.0.0.1:5037 stopped: the device list is unknown until it is \
             back; deft reconnects by itself (starting it once if adb is installed)"
        );
        assert_eq!(
            properties_failed("p", 127, "/system/bin/sh: getprop: not found\n"),
            "device 'p' could not read its properties with getprop (exit status 127: \
             /system/bin/sh: getprop: not found): is it an Android device running its system?"
        );
        assert_eq!(
            pull_failed("p", "/x", "No such file or directory"),
            "device 'p' could not send /x: No such file or directory"
        );
        assert_eq!(
            nul_in_argument(2),
            "argument 2 of the command holds a NUL byte, which no device shell command can carry: \
             remove it"
        );
    }

    #[test]
    fn each_state_says_what_to_do() {
        assert_eq!(state_advice("device"), None);
        let said = |state: &str| state_advice(state).unwrap_or_default();
        assert_eq!(
            said("unauthorized"),
            "unlock the phone and accept its 'Allow USB debugging?' prompt (tick 'Always allow \
             from this computer'); no prompt? unplug and plug it in again, or revoke the USB \
             debugging authorizations in Developer options — the key the phone is asked to trust \
             is ~/.android/adbkey of the user running the adb server"
        );
        assert_eq!(
            said("offline"),
            "reconnect it (unplug and plug in the cable, or run `adb reconnect`; a network phone: \
             `adb connect HOST:PORT` again); if it stays offline, restart the phone"
        );
        assert_eq!(
            said(
                "no permissions (missing udev rules? user is in the plugdev group); see \
                 [http://developer.android.com/tools/device.html]"
            ),
            "this user may not open the phone's USB device: install udev rules for Android \
             phones (Debian: apt-get install android-sdk-platform-tools-common), add the user to \
             the plugdev group, then unplug and plug the phone in again"
        );
        for state in ["authorizing", "still authorizing"] {
            assert_eq!(
                said(state),
                "wait a moment: the adb server is checking its key with the phone (unlock the \
                 phone if it asks)"
            );
        }
        for state in ["connecting", "still connecting"] {
            assert_eq!(
                said(state),
                "wait a moment: the adb server is still connecting to the phone"
            );
        }
        assert_eq!(
            said("recovery"),
            "the phone is in recovery mode, not running Android: reboot it into Android (adb \
             reboot), then it shows as 'device'"
        );
        assert_eq!(
            said("host"),
            "adb reports the state 'host', and deft uses a phone only in the state 'device': \
             check the phone and its connection"
        );
    }
}
