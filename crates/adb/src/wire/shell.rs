//! Shell protocol v2 packets: `id:u8`, `length:u32 LE`, then `length` bytes. Packets may be
//! split across transport writes or share one; [`ShellDecoder`] reassembles them.

use super::WireError;

/// stdin (client → device).
pub const STDIN: u8 = 0;
/// stdout (device → client).
pub const STDOUT: u8 = 1;
/// stderr (device → client).
pub const STDERR: u8 = 2;
/// The exit status: one byte, sent last.
pub const EXIT: u8 = 3;
/// The client has no more stdin (empty payload).
pub const CLOSE_STDIN: u8 = 4;
/// A terminal size change (`"ROWSxCOLS,XPIXxYPIX"`).
pub const WINDOW_SIZE: u8 = 5;
/// The largest packet the decoder accepts (adb's own packets are at most 256 KiB).
pub const MAX_PACKET: u32 = 1 << 20;
const HEADER: usize = 5;

/// One packet: its id and payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// `STDIN`, `STDOUT`, `STDERR`, `EXIT`, `CLOSE_STDIN` or `WINDOW_SIZE`.
    pub id: u8,
    /// The bytes.
    pub payload: Vec<u8>,
}

/// The bytes of one packet.
pub fn encode(id: u8, payload: &[u8]) -> Vec<u8> {
    let length = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.push(id);
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Reassembles packets from the chunks a stream delivers.
#[derive(Debug, Default)]
pub struct ShellDecoder {
    buffer: Vec<u8>,
}

impl ShellDecoder {
    /// An empty decoder.
    pub fn new() -> ShellDecoder {
        ShellDecoder::default()
    }

    /// Adds the next chunk.
    pub fn push(&mut self, chunk: &[u8]) {
        self.buffer.extend_from_slice(chunk);
    }

    /// The next whole packet, `None` until one has arrived; an unknown id or a length over
    /// [`MAX_PACKET`] is an error.
    pub fn next_packet(&mut self) -> Result<Option<Packet>, WireError> {
        if self.buffer.len() < HEADER {
            return Ok(None);
        }
        let id = self.buffer[0];
        if id > WINDOW_SIZE {
            return Err(WireError::UnknownId {
                what: "shell packet",
                id: id.to_string(),
            });
        }
        let mut word = [0u8; 4];
        word.copy_from_slice(&self.buffer[1..HEADER]);
        let length = u32::from_le_bytes(word);
        if length > MAX_PACKET {
            return Err(WireError::Oversize {
                what: "shell packet",
                length: u64::from(length),
                limit: u64::from(MAX_PACKET),
            });
        }
        let end = HEADER + length as usize;
        if self.buffer.len() < end {
            return Ok(None);
        }
        let payload = self.buffer[HEADER..end].to_vec();
        self.buffer.drain(..end);
        Ok(Some(Packet { id, payload }))
    }

    /// Whether a partial packet is waiting for more bytes.
    pub fn is_partial(&self) -> bool {
        !self.buffer.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_split_and_packed_are_reassembled() {
        let mut bytes = encode(STDOUT, b"hello\n");
        bytes.extend(encode(EXIT, &[1]));
        assert_eq!(&bytes[..5], &[1, 6, 0, 0, 0]);
        let mut decoder = ShellDecoder::new();
        let mut packets = Vec::new();
        for byte in &bytes {
            decoder.push(std::slice::from_ref(byte));
            while let Some(packet) = decoder.next_packet().unwrap() {
                packets.push(packet);
            }
        }
        assert_eq!(
            packets,
            vec![
                Packet {
                    id: STDOUT,
                    payload: b"hello\n".to_vec()
                },
                Packet {
                    id: EXIT,
                    payload: vec![1]
                }
            ]
        );
        assert!(!decoder.is_partial());
        let mut whole = ShellDecoder::new();
        whole.push(&bytes);
        assert_eq!(whole.next_packet().unwrap().unwrap().payload, b"hello\n");
        assert_eq!(whole.next_packet().unwrap().unwrap().id, EXIT);
        assert_eq!(whole.next_packet().unwrap(), None);
    }

    #[test]
    fn malformed_packets_are_errors() {
        let mut decoder = ShellDecoder::new();
        decoder.push(&[9, 0, 0, 0, 0]);
        assert_eq!(
            decoder.next_packet(),
            Err(WireError::UnknownId {
                what: "shell packet",
                id: "9".into()
            })
        );
        let mut decoder = ShellDecoder::new();
        decoder.push(&[STDOUT, 0xff, 0xff, 0xff, 0xff]);
        assert!(matches!(
            decoder.next_packet(),
            Err(WireError::Oversize {
                what: "shell packet",
                ..
            })
        ));
        let mut decoder = ShellDecoder::new();
        decoder.push(&[STDOUT, 4, 0]);
        assert_eq!(decoder.next_packet(), Ok(None));
        assert!(decoder.is_partial());
    }
}
