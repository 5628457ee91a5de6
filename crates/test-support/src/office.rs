//! Document fixtures and independent checks: files made by LibreOffice itself in a headless
//! instance of its own (a separate private profile, so nothing deft does is involved), and the
//! text of the files deft writes, read back the same way or with poppler's `pdftotext`.

#![allow(clippy::unwrap_used)] // test helpers: a failure is a failing test

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::desktop::{SYSTEM_PYTHON, require_program};

/// Debian's `soffice.bin`.
pub const SOFFICE_BIN: &str = "/usr/lib/libreoffice/program/soffice.bin";

/// Fails (never skips) with what to install when LibreOffice, its Python bridge or poppler is
/// missing.
pub fn require_office() {
    require_program(
        SOFFICE_BIN,
        "libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-gtk3",
    );
    require_program("soffice", "libreoffice-writer");
    require_program("pdftotext", "poppler-utils");
    let uno = Command::new(SYSTEM_PYTHON)
        .args(["-c", "import uno"])
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(
        uno,
        "{SYSTEM_PYTHON} has no uno module: install the Debian package python3-uno (scripts/test.sh does)"
    );
}

/// Converts `src` with `soffice --headless --convert-to FILTER` into `outdir` (a fresh private
/// profile, so it never meets another instance); returns the new file.
pub fn convert(src: &Path, to: &str, outdir: &Path) -> PathBuf {
    let profile = tempfile::Builder::new()
        .prefix("deft-convert-profile-")
        .tempdir()
        .unwrap();
    let url = format!("file://{}", profile.path().display());
    let out = Command::new("soffice")
        .arg(format!("-env:UserInstallation={url}"))
        .args(["--headless", "--norestore", "--convert-to", to, "--outdir"])
        .arg(outdir)
        .arg(src)
        .env_remove("DISPLAY")
        .stdin(Stdio::null())
        .output()
        .expect("soffice runs");
    let ext = to.split(':').next().unwrap_or(to);
    let made = outdir.join(src.file_stem().unwrap()).with_extension(ext);
    assert!(
        made.exists(),
        "soffice --convert-to {to} {} made nothing: {}{}",
        src.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    made
}

/// Writes `html` to `dir/name.html` and converts it to `ext` (`docx`, `odt`, …).
pub fn document_from_html(dir: &Path, name: &str, html: &str, ext: &str) -> PathBuf {
    let src = dir.join(format!("{name}.html"));
    std::fs::write(&src, html).unwrap();
    let filter = match ext {
        "docx" => "docx:MS Word 2007 XML",
        "odt" => "odt:writer8",
        other => other,
    };
    let made = convert(&src, filter, dir);
    std::fs::remove_file(&src).unwrap();
    made
}

/// Writes `csv` to `dir/name.csv` and converts it to `ext` (`xlsx`, `ods`).
pub fn sheet_from_csv(dir: &Path, name: &str, csv: &str, ext: &str) -> PathBuf {
    let src = dir.join(format!("{name}.csv"));
    std::fs::write(&src, csv).unwrap();
    let filter = match ext {
        "xlsx" => "xlsx:Calc MS Excel 2007 XML",
        other => other,
    };
    let made = convert(&src, filter, dir);
    std::fs::remove_file(&src).unwrap();
    made
}

/// A text document's text, converted independently (`soffice --convert-to txt`).
pub fn document_text(doc: &Path) -> String {
    let out = tempfile::tempdir().unwrap();
    let txt = convert(doc, "txt:Text (encoded):UTF8", out.path());
    std::fs::read_to_string(txt).unwrap()
}

/// A spreadsheet's first sheet as CSV, converted independently.
pub fn sheet_csv(doc: &Path) -> String {
    let out = tempfile::tempdir().unwrap();
    let csv = convert(
        doc,
        "csv:Text - txt - csv (StarCalc):44,34,76,1",
        out.path(),
    );
    std::fs::read_to_string(csv).unwrap()
}

/// A PDF's text (`pdftotext`).
pub fn pdf_text(pdf: &Path) -> String {
    let out = Command::new("pdftotext")
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext runs");
    assert!(out.status.success(), "pdftotext {} failed", pdf.display());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The fonts a PDF embeds (`pdffonts`), one name per entry.
pub fn pdf_fonts(pdf: &Path) -> Vec<String> {
    let out = Command::new("pdffonts")
        .arg(pdf)
        .output()
        .expect("pdffonts runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(2)
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// The `soffice.bin` processes whose command line contains `needle` (pids).
pub fn soffice_pids(needle: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmd = String::from_utf8_lossy(&cmd);
            cmd.contains("soffice.bin") && cmd.contains(needle)
        })
        .collect()
}
