//! File-sync frames (`sync:` service): a four-letter id and a little-endian u32. For requests
//! (`STAT`, `STA2`, `LST2`, `LIST`, `RECV`, `SEND`) and for `DATA` and `FAIL` the u32 is the
//! length of the bytes that follow; for `DONE` (an mtime), `OKAY` and `QUIT` it is a value and
//! nothing follows. [`SyncDecoder`] reads frames from a stream's chunks.

use super::WireError;

/// The largest `DATA` chunk (64 KiB).
pub const MAX_DATA: u32 = 64 * 1024;
/// The longest path a request may carry.
pub const MAX_PATH: u32 = 1024;

/// Ids whose u32 is the length of a payload that follows.
const WITH_PAYLOAD: [&[u8; 4]; 9] = [
    b"STAT", b"STA2", b"LST2", b"LIST", b"LIS2", b"RECV", b"SEND", b"DATA", b"FAIL",
];
/// Ids whose u32 is a plain value.
const WITHOUT_PAYLOAD: [&[u8; 4]; 3] = [b"DONE", b"OKAY", b"QUIT"];

/// One frame: its id, its u32 and (for the ids that have one) its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The four letters.
    pub id: [u8; 4],
    /// The length (of `payload`) or the value.
    pub value: u32,
    /// The bytes after the header (empty for `DONE`, `OKAY`, `QUIT`).
    pub payload: Vec<u8>,
}

/// The bytes of a frame whose u32 is the payload's length.
pub fn encode(id: &[u8; 4], payload: &[u8]) -> Vec<u8> {
    let length = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(8 + payload.len());
    out.extend_from_slice(id);
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The bytes of a frame whose u32 is a value (`DONE mtime`, `OKAY 0`, `QUIT 0`).
pub fn encode_value(id: &[u8; 4], value: u32) -> [u8; 8] {
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(id);
    out[4..].copy_from_slice(&value.to_le_bytes());
    out
}

/// Reads frames from the chunks a stream delivers.
#[derive(Debug, Default)]
pub struct SyncDecoder {
    buffer: Vec<u8>,
}

impl SyncDecoder {
    /// An empty decoder.
    pub fn new() -> SyncDecoder {
        SyncDecoder::default()
    }

    /// Adds the next chunk.
    pub fn push(&mut self, chunk: &[u8]) {
        self.buffer.extend_from_slice(chunk);
    }

    /// The next whole frame, `None` until one has arrived. An unknown id, a `DATA` over
    /// [`MAX_DATA`] or another payload over [`MAX_PATH`] (`FAIL`: over `MAX_DATA`) is an error.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, WireError> {
        if self.buffer.len() < 8 {
            return Ok(None);
        }
        let mut id = [0u8; 4];
        id.copy_from_slice(&self.buffer[..4]);
        let mut word = [0u8; 4];
        word.copy_from_slice(&self.buffer[4..8]);
        let value = u32::from_le_bytes(word);
        let length = if WITHOUT_PAYLOAD.contains(&&id) {
            0
        } else if WITH_PAYLOAD.contains(&&id) {
            let limit = if &id == b"DATA" || &id == b"FAIL" {
                MAX_DATA
            } else {
                MAX_PATH
            };
            if value > limit {
                return Err(WireError::Oversize {
                    what: "sync frame",
                    length: u64::from(value),
                    limit: u64::from(limit),
                });
            }
            value as usize
        } else {
            return Err(WireError::UnknownId {
                what: "sync",
                id: String::from_utf8_lossy(&id).escape_debug().to_string(),
            });
        };
        if self.buffer.len() < 8 + length {
            return Ok(None);
        }
        let payload = self.buffer[8..8 + length].to_vec();
        self.buffer.drain(..8 + length);
        Ok(Some(Frame { id, value, payload }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_values_round_trip_across_chunks() {
        let mut bytes = encode(b"RECV", b"/sdcard/window_dump.xml");
        bytes.extend(encode_value(b"DONE", 1234));
        bytes.extend(encode(b"DATA", b"abc"));
        let mut decoder = SyncDecoder::new();
        let mut frames = Vec::new();
        for chunk in bytes.chunks(5) {
            decoder.push(chunk);
            while let Some(frame) = decoder.next_frame().unwrap() {
                frames.push(frame);
            }
        }
        assert_eq!(frames.len(), 3);
        assert_eq!(&frames[0].id, b"RECV");
        assert_eq!(frames[0].payload, b"/sdcard/window_dump.xml");
        assert_eq!((&frames[1].id, frames[1].value), (b"DONE", 1234));
        assert!(frames[1].payload.is_empty());
        assert_eq!(frames[2].payload, b"abc");
    }

    #[test]
    fn malformed_frames_are_errors() {
        let mut decoder = SyncDecoder::new();
        decoder.push(b"XYZW\0\0\0\0");
        assert_eq!(
            decoder.next_frame(),
            Err(WireError::UnknownId {
                what: "sync",
                id: "XYZW".into()
            })
        );
        let mut decoder = SyncDecoder::new();
        decoder.push(&encode_value(b"DATA", MAX_DATA + 1));
        assert!(matches!(
            decoder.next_frame(),
            Err(WireError::Oversize {
                what: "sync frame",
                ..
            })
        ));
        let mut decoder = SyncDecoder::new();
        decoder.push(&encode_value(b"RECV", MAX_PATH + 1));
        assert!(decoder.next_frame().is_err());
    }
}
