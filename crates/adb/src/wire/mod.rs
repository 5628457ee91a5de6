//! The bytes on adb's wires, shared by the client and the device double: the transport
//! message [`header`] between an adb server and a device, the shell protocol v2 packets
//! ([`shell`]) and the file-sync frames ([`sync`]). Pure codecs: no I/O.

pub mod header;
pub mod shell;
pub mod sync;

use crate::texts;

/// A message that breaks the protocol; its text says what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// A transport header whose magic is not its command's complement.
    #[error("{}", texts::bad_magic(*command, *magic))]
    BadMagic {
        /// The command field.
        command: u32,
        /// The magic field.
        magic: u32,
    },
    /// A length field larger than the limit of its kind of message.
    #[error("{}", texts::oversize(what, *length, *limit))]
    Oversize {
        /// Which length (a transport payload, a shell packet, a sync frame).
        what: &'static str,
        /// The length it announced.
        length: u64,
        /// The largest allowed.
        limit: u64,
    },
    /// A shell-v2 packet id or a sync id this codec does not know.
    #[error("{}", texts::unknown_id(what, id))]
    UnknownId {
        /// Which kind of id.
        what: &'static str,
        /// The id, printable.
        id: String,
    },
}
