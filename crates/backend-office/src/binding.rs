//! Which document a tool acts on: the frame of the selected window.
//!
//! The office server learns nothing from the desktop backend. It finds deft's LibreOffice
//! instances from the system itself — `soffice.bin` processes of this user with a
//! `--accept=pipe,name=…` on their command line and this desktop's `DISPLAY` in their
//! environment — and asks each for its frames (X window id, title, kind, active). The frame it
//! binds to is the one titled like the selected window (the Computer's `process`), the active
//! one among equals; with no title to go by (standalone), the active document frame. Once bound
//! it follows that X window, whatever its title becomes (Save As renames it).

use std::path::Path;

use crate::documents::Kind;

/// A LibreOffice instance deft started (found by its UNO pipe).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// `soffice.bin`'s pid.
    pub pid: u32,
    /// Its UNO pipe.
    pub pipe: String,
}

/// The UNO pipe named by a command line's `--accept=pipe,name=NAME;…`.
pub fn accept_pipe(cmdline: &[u8]) -> Option<String> {
    cmdline.split(|b| *b == 0).find_map(|arg| {
        let arg = std::str::from_utf8(arg).ok()?;
        let rest = arg.strip_prefix("--accept=")?;
        let spec = rest.split(';').next()?;
        let mut parts = spec.split(',');
        if parts.next()? != "pipe" {
            return None;
        }
        parts.find_map(|p| p.strip_prefix("name=").map(str::to_owned))
    })
}

/// The value of `name` in an environ block.
fn environ_var(environ: &[u8], name: &str) -> Option<String> {
    let prefix = format!("{name}=");
    environ.split(|b| *b == 0).find_map(|kv| {
        let kv = std::str::from_utf8(kv).ok()?;
        kv.strip_prefix(&prefix).map(str::to_owned)
    })
}

/// The `soffice.bin` processes on `display` (any display when `None`) that accept UNO
/// connections on a pipe, oldest first.
pub fn instances(display: Option<&str>) -> Vec<Found> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out: Vec<Found> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let dir = Path::new("/proc").join(pid.to_string());
            let exe = std::fs::read_link(dir.join("exe")).ok()?;
            if exe.file_name()? != "soffice.bin" {
                return None;
            }
            let pipe = accept_pipe(&std::fs::read(dir.join("cmdline")).ok()?)?;
            if let Some(want) = display {
                let env = std::fs::read(dir.join("environ")).ok()?;
                if environ_var(&env, "DISPLAY").as_deref() != Some(want) {
                    return None;
                }
            }
            Some(Found { pid, pipe })
        })
        .collect();
    out.sort_by_key(|f| f.pid);
    out
}

/// A frame as the helper describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The frame's X window.
    pub xid: u64,
    /// Its title (the window's name).
    pub title: String,
    /// The document kind (`None`: no document, or one deft has no tools for).
    pub kind: Option<Kind>,
    /// Whether LibreOffice says it is the active frame.
    pub active: bool,
}

impl Frame {
    /// From one entry of the helper's `frames` answer.
    pub fn from_json(v: &serde_json::Value) -> Option<Frame> {
        Some(Frame {
            xid: v["xid"].as_u64()?,
            title: v["title"].as_str().unwrap_or_default().to_owned(),
            kind: v["kind"].as_str().and_then(Kind::from_helper),
            active: v["active"].as_bool().unwrap_or(false),
        })
    }
}

/// What the choice among frames came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// This frame (index into the candidates).
    One(usize),
    /// No frame fits.
    None,
}

/// Picks the frame for the window titled `process` (empty: whichever document frame is
/// active, or the only one): titled so, the active one first, else the first so titled.
pub fn choose(frames: &[Frame], process: &str) -> Choice {
    let fits = |f: &Frame| {
        if process.is_empty() {
            f.kind.is_some()
        } else {
            f.title == process
        }
    };
    let pick = frames.iter().position(|f| fits(f) && f.active).or_else(|| {
        if !process.is_empty() {
            return frames.iter().position(fits);
        }
        let docs: Vec<usize> = (0..frames.len()).filter(|i| fits(&frames[*i])).collect();
        (docs.len() == 1).then(|| docs[0])
    });
    match pick {
        Some(i) => Choice::One(i),
        None => Choice::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(xid: u64, title: &str, kind: Option<Kind>, active: bool) -> Frame {
        Frame {
            xid,
            title: title.into(),
            kind,
            active,
        }
    }

    #[test]
    fn the_accept_pipe_is_read_from_the_command_line() {
        let cmd = b"/usr/lib/libreoffice/program/soffice.bin\0-env:UserInstallation=file:///p\0--accept=pipe,name=deft-office-1-2;urp;StarOffice.ComponentContext\0";
        assert_eq!(accept_pipe(cmd).as_deref(), Some("deft-office-1-2"));
        assert_eq!(
            accept_pipe(b"soffice.bin\0--accept=socket,host=127.0.0.1,port=2002;urp;\0"),
            None
        );
        assert_eq!(accept_pipe(b"soffice.bin\0--writer\0"), None);
        assert_eq!(
            environ_var(b"A=1\0DISPLAY=:7\0B=2", "DISPLAY").as_deref(),
            Some(":7")
        );
    }

    #[test]
    fn the_window_title_picks_the_frame_and_the_active_one_wins_a_tie() {
        let w = Some(Kind::Writer);
        let frames = [
            frame(1, "a.docx - LibreOffice Writer", w, false),
            frame(2, "b.docx - LibreOffice Writer", w, false),
            frame(3, "b.docx - LibreOffice Writer", w, true),
        ];
        assert_eq!(
            choose(&frames, "a.docx - LibreOffice Writer"),
            Choice::One(0)
        );
        assert_eq!(
            choose(&frames, "b.docx - LibreOffice Writer"),
            Choice::One(2)
        );
        assert_eq!(choose(&frames, "c.docx - LibreOffice Writer"), Choice::None);
        // No title to go by: the active document frame, or none.
        assert_eq!(choose(&frames, ""), Choice::One(2));
        assert_eq!(choose(&frames[..2], ""), Choice::None);
        assert_eq!(choose(&frames[1..2], ""), Choice::One(0));
    }
}
