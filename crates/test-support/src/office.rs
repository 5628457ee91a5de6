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
    let mut cmd = Command::new("soffice");
    if src.extension().is_some_and(|e| e == "csv") {
        // Comma-separated, quoted, UTF-8 (LibreOffice guesses a legacy encoding otherwise).
        cmd.arg("--infilter=CSV:44,34,76,1");
    }
    let out = cmd
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

/// A presentation of `slides` (one text box each), written as flat OpenDocument XML and
/// converted to `ext` (`pptx`, `odp`).
pub fn presentation_from_slides(dir: &Path, name: &str, slides: &[&str], ext: &str) -> PathBuf {
    let pages: String = slides
        .iter()
        .enumerate()
        .map(|(i, text)| {
            format!(
                r#"<draw:page draw:name="page{}"><draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" svg:height="3cm"><draw:text-box><text:p>{}</text:p></draw:text-box></draw:frame></draw:page>"#,
                i + 1,
                xml_escape(text)
            )
        })
        .collect();
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.presentation"><office:body><office:presentation>{pages}</office:presentation></office:body></office:document>"#
    );
    let src = dir.join(format!("{name}.fodp"));
    std::fs::write(&src, xml).unwrap();
    let filter = match ext {
        "pptx" => "pptx:Impress MS PowerPoint 2007 XML",
        other => other,
    };
    let made = convert(&src, filter, dir);
    std::fs::remove_file(&src).unwrap();
    made
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A document as flat OpenDocument XML (`fodt`, `fods` or `fodp`), converted independently: its
/// styles (fonts, sizes, fills) can be read from the text.
pub fn flat_xml(doc: &Path, ext: &str) -> String {
    let out = tempfile::tempdir().unwrap();
    let xml = convert(doc, ext, out.path());
    std::fs::read_to_string(xml).unwrap()
}

/// The colour of pixel (x, y) of a PNG, as `RRGGBB`.
pub fn png_pixel(png: &Path, x: u32, y: u32) -> String {
    let img = image::open(png)
        .unwrap_or_else(|e| panic!("{} is no PNG: {e}", png.display()))
        .to_rgb8();
    let p = img.get_pixel(x, y);
    format!("{:02X}{:02X}{:02X}", p[0], p[1], p[2])
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
        "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false",
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

/// How many pages a PDF has (`pdfinfo`).
pub fn pdf_pages(pdf: &Path) -> usize {
    let out = Command::new("pdfinfo")
        .arg(pdf)
        .output()
        .expect("pdfinfo runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

/// HTML for a long report: a title, `sections` sections of `paragraphs` paragraphs of about 70
/// words each (seeded, non-ASCII words among them), a 5 × 4 table every fifth section.
pub fn long_report_html(sections: usize, paragraphs: usize) -> String {
    const WORDS: &[&str] = &[
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "theta",
        "kappa",
        "lambda",
        "omega",
        "Grüße",
        "naïve",
        "café",
        "日本語",
        "report",
        "quarter",
        "revenue",
        "growth",
        "market",
    ];
    let mut seed: u64 = 7;
    let mut word = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        WORDS[(seed >> 33) as usize % WORDS.len()]
    };
    let mut html = String::from("<html><body><h1>Annual Report</h1>");
    for s in 1..=sections {
        html.push_str(&format!("<h2>Section {s}</h2>"));
        for _ in 0..paragraphs {
            let words: Vec<&str> = (0..70).map(|_| word()).collect();
            html.push_str(&format!("<p>{}.</p>", words.join(" ")));
        }
        if s % 5 == 0 {
            html.push_str("<table border=1>");
            for r in 0..5 {
                html.push_str("<tr>");
                for c in 0..4 {
                    html.push_str(&format!("<td>S{s}R{r}C{c}</td>"));
                }
                html.push_str("</tr>");
            }
            html.push_str("</table>");
        }
    }
    html.push_str("</body></html>");
    html
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
