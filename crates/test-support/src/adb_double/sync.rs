//! The double's `sync:` service: STAT/STA2/LST2 (a file of the double, or missing), LIST/LIS2
//! (empty folders), RECV (the file in `DATA` chunks and `DONE`, or `FAIL`), SEND (kept as a
//! file), QUIT.

use std::sync::Arc;

use deft_adb::wire::sync::{MAX_DATA, SyncDecoder, encode, encode_value};
use parking_lot::Mutex;

use super::device::Device;
use super::stream::StreamIo;

/// The mode of the double's files (a regular file, rw-r--r--).
const FILE_MODE: u32 = 0o100_644;
/// Their modification time.
const MTIME: u32 = 1_700_000_000;
/// `ENOENT`.
const ENOENT: u32 = 2;

/// Serves sync requests until `QUIT` or the stream closes.
pub(crate) async fn serve(mut io: StreamIo, device: Arc<Mutex<Device>>) {
    let mut decoder = SyncDecoder::new();
    let mut upload: Option<(String, Vec<u8>)> = None;
    loop {
        let frame = match decoder.next_frame() {
            Ok(Some(frame)) => frame,
            Ok(None) => match io.read().await {
                Some(chunk) => {
                    decoder.push(&chunk);
                    continue;
                }
                None => return,
            },
            Err(_) => return io.close(),
        };
        let path = String::from_utf8_lossy(&frame.payload).into_owned();
        let size = device.lock().files.get(&path).map(Vec::len);
        let reply = match &frame.id {
            b"STAT" => stat_v1(size),
            b"STA2" | b"LST2" => stat_v2(&frame.id, size),
            b"LIST" => [b"DONE".as_slice(), &[0u8; 16]].concat(),
            b"LIS2" => [b"DONE".as_slice(), &[0u8; 72]].concat(),
            b"RECV" => recv(device.lock().files.get(&path)),
            b"SEND" => {
                let target = path.rsplit_once(',').map_or(path.as_str(), |(p, _)| p);
                upload = Some((target.to_owned(), Vec::new()));
                continue;
            }
            b"DATA" => {
                if let Some((_, data)) = upload.as_mut() {
                    data.extend(frame.payload);
                }
                continue;
            }
            b"DONE" => {
                if let Some((target, data)) = upload.take() {
                    device.lock().files.insert(target, data);
                }
                encode_value(b"OKAY", 0).to_vec()
            }
            b"QUIT" => return io.close(),
            _ => encode(b"FAIL", b"unsupported sync request"),
        };
        if !io.write(&reply).await {
            return;
        }
    }
}

/// `STAT mode size mtime` (all zero: missing).
fn stat_v1(size: Option<usize>) -> Vec<u8> {
    let (mode, size, mtime) = match size {
        Some(size) => (FILE_MODE, size as u32, MTIME),
        None => (0, 0, 0),
    };
    [
        b"STAT".as_slice(),
        &mode.to_le_bytes(),
        &size.to_le_bytes(),
        &mtime.to_le_bytes(),
    ]
    .concat()
}

/// The 72-byte `STA2`/`LST2` answer: id, error, dev, ino, mode, nlink, uid, gid, size, atime,
/// mtime, ctime.
fn stat_v2(id: &[u8; 4], size: Option<usize>) -> Vec<u8> {
    let mut out = id.to_vec();
    let Some(size) = size else {
        out.extend(ENOENT.to_le_bytes());
        out.resize(72, 0);
        return out;
    };
    out.extend(0u32.to_le_bytes()); // error
    out.extend(0u64.to_le_bytes()); // dev
    out.extend(1u64.to_le_bytes()); // ino
    out.extend(FILE_MODE.to_le_bytes());
    out.extend(1u32.to_le_bytes()); // nlink
    out.extend(2000u32.to_le_bytes()); // uid (shell)
    out.extend(2000u32.to_le_bytes()); // gid
    out.extend((size as u64).to_le_bytes());
    for _ in 0..3 {
        out.extend(i64::from(MTIME).to_le_bytes()); // atime, mtime, ctime
    }
    out
}

/// The file in `DATA` chunks then `DONE`, or `FAIL` when missing.
fn recv(file: Option<&Vec<u8>>) -> Vec<u8> {
    let Some(bytes) = file else {
        return encode(b"FAIL", b"No such file or directory");
    };
    let mut out = Vec::with_capacity(bytes.len() + 16);
    for chunk in bytes.chunks(MAX_DATA as usize) {
        out.extend(encode(b"DATA", chunk));
    }
    out.extend(encode_value(b"DONE", 0));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_answers_have_adbs_sizes() {
        assert_eq!(stat_v1(Some(5)).len(), 16);
        assert_eq!(stat_v2(b"STA2", Some(5)).len(), 72);
        let missing = stat_v2(b"STA2", None);
        assert_eq!(
            (missing.len(), &missing[4..8]),
            (72, &2u32.to_le_bytes()[..])
        );
        let big = recv(Some(&vec![7u8; 70_000]));
        assert_eq!(big.len(), 8 + 65_536 + 8 + 4_464 + 8);
    }
}
