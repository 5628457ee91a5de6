//! The 24-byte transport message header (six little-endian u32: command, arg0, arg1, payload
//! length, checksum, magic) and whole messages. The checksum is written as 0 (transport version
//! `0x01000001` skips it) and never verified, as adb does.

use super::WireError;

/// `CNXN`: connect, with the version and the largest payload.
pub const A_CNXN: u32 = u32::from_le_bytes(*b"CNXN");
/// `AUTH`: authentication (a double never sends it).
pub const A_AUTH: u32 = u32::from_le_bytes(*b"AUTH");
/// `OPEN`: open a stream to a service.
pub const A_OPEN: u32 = u32::from_le_bytes(*b"OPEN");
/// `OKAY`: a stream is open, or a write was consumed.
pub const A_OKAY: u32 = u32::from_le_bytes(*b"OKAY");
/// `CLSE`: a stream is closed (or an OPEN refused).
pub const A_CLSE: u32 = u32::from_le_bytes(*b"CLSE");
/// `WRTE`: data on a stream.
pub const A_WRTE: u32 = u32::from_le_bytes(*b"WRTE");
/// The transport version that skips checksums (what adb 29 and later speak).
pub const VERSION: u32 = 0x0100_0001;
/// The largest payload any adb accepts (1 MiB).
pub const MAX_PAYLOAD: u32 = 1 << 20;
/// The header's length in bytes.
pub const HEADER_LEN: usize = 24;

/// One transport header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The command (`A_*`).
    pub command: u32,
    /// First argument (for stream messages: the sender's local id).
    pub arg0: u32,
    /// Second argument (for stream messages: the receiver's id).
    pub arg1: u32,
    /// The payload's length.
    pub length: u32,
}

impl Header {
    /// The header's bytes (checksum 0, magic the command's complement).
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        let fields = [
            self.command,
            self.arg0,
            self.arg1,
            self.length,
            0,
            self.command ^ 0xffff_ffff,
        ];
        for (slot, field) in out.chunks_exact_mut(4).zip(fields) {
            slot.copy_from_slice(&field.to_le_bytes());
        }
        out
    }

    /// Reads a header, checking the magic and that the length is at most `max_payload`.
    pub fn decode(bytes: &[u8; HEADER_LEN], max_payload: u32) -> Result<Header, WireError> {
        let field = |i: usize| {
            let mut word = [0u8; 4];
            word.copy_from_slice(&bytes[i * 4..i * 4 + 4]);
            u32::from_le_bytes(word)
        };
        let (command, magic) = (field(0), field(5));
        if magic != command ^ 0xffff_ffff {
            return Err(WireError::BadMagic { command, magic });
        }
        let length = field(3);
        if length > max_payload {
            return Err(WireError::Oversize {
                what: "transport payload",
                length: u64::from(length),
                limit: u64::from(max_payload),
            });
        }
        Ok(Header {
            command,
            arg0: field(1),
            arg1: field(2),
            length,
        })
    }
}

/// A whole transport message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The command (`A_*`).
    pub command: u32,
    /// First argument.
    pub arg0: u32,
    /// Second argument.
    pub arg1: u32,
    /// The payload.
    pub payload: Vec<u8>,
}

impl Message {
    /// A message of `command` with its arguments and payload.
    pub fn new(command: u32, arg0: u32, arg1: u32, payload: Vec<u8>) -> Message {
        Message {
            command,
            arg0,
            arg1,
            payload,
        }
    }

    /// Header and payload as they go on the wire.
    pub fn encode(&self) -> Vec<u8> {
        let length = u32::try_from(self.payload.len()).unwrap_or(u32::MAX);
        let header = Header {
            command: self.command,
            arg0: self.arg0,
            arg1: self.arg1,
            length,
        };
        let mut out = Vec::with_capacity(HEADER_LEN + self.payload.len());
        out.extend_from_slice(&header.encode());
        out.extend_from_slice(&self.payload);
        out
    }
}

/// The command's four letters, for messages and logs (`CNXN`, or the hex of an unknown one).
pub fn command_name(command: u32) -> String {
    let bytes = command.to_le_bytes();
    if bytes.iter().all(u8::is_ascii_uppercase) {
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        format!("{command:#010x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_byte_exact() {
        // the double's CNXN with a 203-byte banner, as the research traced it from adb 29.0.6
        let cnxn = Header {
            command: A_CNXN,
            arg0: VERSION,
            arg1: 0x40000,
            length: 203,
        };
        let expected: [u8; 24] = [
            0x43, 0x4e, 0x58, 0x4e, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x04, 0x00, 0xcb, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xbc, 0xb1, 0xa7, 0xb1,
        ];
        assert_eq!(cnxn.encode(), expected);
        let clse = Header {
            command: A_CLSE,
            arg0: 0,
            arg1: 8,
            length: 0,
        };
        assert_eq!(
            clse.encode()[20..],
            [0xbc, 0xb3, 0xac, 0xba],
            "magic of CLSE"
        );
        assert_eq!(Header::decode(&cnxn.encode(), MAX_PAYLOAD), Ok(cnxn));
    }

    #[test]
    fn a_bad_magic_is_refused() {
        let mut bytes = Header {
            command: A_OKAY,
            arg0: 1,
            arg1: 2,
            length: 0,
        }
        .encode();
        bytes[23] ^= 1;
        let err = Header::decode(&bytes, MAX_PAYLOAD).unwrap_err();
        assert!(
            matches!(
                err,
                WireError::BadMagic {
                    command: A_OKAY,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn an_oversize_payload_is_refused() {
        let bytes = Header {
            command: A_WRTE,
            arg0: 1,
            arg1: 2,
            length: 4097,
        }
        .encode();
        assert_eq!(
            Header::decode(&bytes, 4096),
            Err(WireError::Oversize {
                what: "transport payload",
                length: 4097,
                limit: 4096
            })
        );
        assert!(Header::decode(&bytes, 4097).is_ok());
    }

    #[test]
    fn messages_carry_their_payload() {
        let message = Message::new(A_WRTE, 1, 8, b"hi".to_vec());
        let bytes = message.encode();
        assert_eq!(bytes.len(), 26);
        assert_eq!(&bytes[..4], b"WRTE");
        assert_eq!(&bytes[12..16], &2u32.to_le_bytes());
        assert_eq!(&bytes[24..], b"hi");
        assert_eq!(command_name(A_OPEN), "OPEN");
        assert_eq!(command_name(7), "0x00000007");
    }
}
