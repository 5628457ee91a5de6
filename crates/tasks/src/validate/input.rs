//! The validator's input: raw bytes (refused past the size cap before parsing; malformed
//! JSON reported with its line and column) or an already parsed JSON value (measured the
//! same way).

use std::borrow::Cow;
use std::io;

use serde_json::Value;

use super::report::Issue;
use crate::step::limits::MAX_FILE_BYTES;
use crate::texts;

/// A task file's content, or a parsed JSON value.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    /// The bytes of a file or a request body.
    Bytes(&'a [u8]),
    /// A parsed value (a request that carried the task inside other JSON).
    Value(&'a Value),
}

impl<'a> From<&'a [u8]> for Input<'a> {
    fn from(b: &'a [u8]) -> Self {
        Input::Bytes(b)
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for Input<'a> {
    fn from(b: &'a [u8; N]) -> Self {
        Input::Bytes(b)
    }
}

impl<'a> From<&'a Vec<u8>> for Input<'a> {
    fn from(b: &'a Vec<u8>) -> Self {
        Input::Bytes(b)
    }
}

impl<'a> From<&'a str> for Input<'a> {
    fn from(s: &'a str) -> Self {
        Input::Bytes(s.as_bytes())
    }
}

impl<'a> From<&'a String> for Input<'a> {
    fn from(s: &'a String) -> Self {
        Input::Bytes(s.as_bytes())
    }
}

impl<'a> From<&'a Value> for Input<'a> {
    fn from(v: &'a Value) -> Self {
        Input::Value(v)
    }
}

/// The JSON value, or the one issue that stops validation before it starts.
pub(super) fn load(input: Input<'_>) -> Result<Cow<'_, Value>, Issue> {
    match input {
        Input::Bytes(bytes) => {
            if bytes.len() > MAX_FILE_BYTES {
                return Err(Issue::new(
                    "",
                    texts::too_large(bytes.len(), MAX_FILE_BYTES),
                ));
            }
            let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            serde_json::from_slice(bytes)
                .map(Cow::Owned)
                .map_err(malformed)
        }
        Input::Value(v) => {
            let size = encoded_len(v);
            if size > MAX_FILE_BYTES {
                return Err(Issue::new("", texts::too_large(size, MAX_FILE_BYTES)));
            }
            Ok(Cow::Borrowed(v))
        }
    }
}

fn malformed(e: serde_json::Error) -> Issue {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let what = full.strip_suffix(&suffix).unwrap_or(&full);
    Issue {
        line: Some(e.line()),
        column: Some(e.column()),
        ..Issue::new("", texts::malformed(e.line(), e.column(), what))
    }
}

/// The length of `v` as compact JSON, counted up to just past the cap.
fn encoded_len(v: &Value) -> usize {
    struct Counter(usize);
    impl io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            if self.0 > MAX_FILE_BYTES {
                return Err(io::Error::other("past the cap"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut c = Counter(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}
