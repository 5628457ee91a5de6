//! A `for_each`'s CSV file: opened first, then checked to be a regular file inside an allowed
//! folder by the path the kernel opened (so a symbolic link that leads out of the folders is
//! refused, whatever it is called), read up to [`MAX_CSV_BYTES`] and parsed as RFC 4180 —
//! quoted fields with commas, doubled quotes and line breaks, CRLF or LF lines, a UTF-8 byte
//! order mark dropped.

use std::io::Read;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::outcome::StepError;
use super::texts;
use crate::step::limits::MAX_CSV_BYTES;

/// The environment variable naming the allowed folders (colon-separated), as the office
/// tools read it.
pub const DOCUMENT_DIRS_ENV: &str = "DEFT_DOCUMENT_DIRS";

/// The folders a `for_each` may read CSV files from unless the run request names others:
/// [`DOCUMENT_DIRS_ENV`], else `~/Documents` (the office tools' document folders).
pub fn allowed_dirs_from_env() -> Vec<PathBuf> {
    if let Some(dirs) = std::env::var_os(DOCUMENT_DIRS_ENV) {
        let dirs: Vec<PathBuf> = std::env::split_paths(&dirs)
            .filter(|d| !d.as_os_str().is_empty())
            .collect();
        if !dirs.is_empty() {
            return dirs;
        }
    }
    std::env::var_os("HOME")
        .map(|h| vec![PathBuf::from(h).join("Documents")])
        .unwrap_or_default()
}

/// The rows of the CSV file at `path` (the header first), if it is inside one of `allowed`.
pub(crate) fn read_rows(path: &str, allowed: &[PathBuf]) -> Result<Vec<Vec<String>>, StepError> {
    let text = read_checked(Path::new(path), allowed)?;
    parse(&text).map_err(|e| StepError(texts::csv_unreadable(path, &e)))
}

/// The text of `path`, opened, then checked by what was opened.
fn read_checked(path: &Path, allowed: &[PathBuf]) -> Result<String, StepError> {
    let shown = path.display().to_string();
    if !path.is_absolute() {
        return Err(StepError(texts::csv_not_absolute(&shown)));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| StepError(texts::csv_unreadable(&shown, &e.to_string())))?;
    let opened = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
        .map_err(|e| StepError(texts::csv_unreadable(&shown, &e.to_string())))?;
    let inside = allowed
        .iter()
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .any(|d| opened.starts_with(&d));
    if !inside {
        return Err(StepError(texts::csv_outside(&shown, &opened, allowed)));
    }
    let meta = file
        .metadata()
        .map_err(|e| StepError(texts::csv_unreadable(&shown, &e.to_string())))?;
    if !meta.is_file() {
        return Err(StepError(texts::csv_unreadable(&shown, "it is not a file")));
    }
    if meta.len() > MAX_CSV_BYTES {
        return Err(StepError(texts::csv_too_large(
            &shown,
            meta.len(),
            MAX_CSV_BYTES,
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_CSV_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| StepError(texts::csv_unreadable(&shown, &e.to_string())))?;
    String::from_utf8(bytes)
        .map_err(|_| StepError(texts::csv_unreadable(&shown, texts::CSV_NOT_UTF8)))
}

/// The records of a CSV text; an error says where a quote was left open.
pub(crate) fn parse(text: &str) -> Result<Vec<Vec<String>>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut line = 1usize;
    let mut opened_at = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => {
                quoted = true;
                opened_at = line;
            }
            ',' => row.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                line += 1;
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            _ => field.push(c),
        }
    }
    if quoted {
        return Err(texts::csv_open_quote(opened_at));
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    // Blank lines carry no record.
    rows.retain(|r| !(r.len() == 1 && r[0].is_empty()));
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn quoted_commas_quotes_and_line_breaks_stay_in_their_field() {
        let rows =
            parse("\u{feff}Order,Name\r\n1001,\"Zoë, Jr.\"\r\n1002,\"say \"\"hi\"\"\nthere\"\n\n")
                .unwrap();
        assert_eq!(
            rows,
            vec![
                vec!["Order".to_owned(), "Name".to_owned()],
                vec!["1001".to_owned(), "Zoë, Jr.".to_owned()],
                vec!["1002".to_owned(), "say \"hi\"\nthere".to_owned()],
            ]
        );
        assert_eq!(parse("a,b\n1,2").unwrap().len(), 2);
        assert_eq!(
            parse("a\n\"open\n").unwrap_err(),
            "a quote opened on line 2 is never closed"
        );
    }
}
