//! Embeds the console's built web bundle (`console/`, made by `scripts/web.sh build` from
//! `web/`) into the binary, so `cargo run` needs no Node.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, root: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let path = e.path();
        if path.is_dir() {
            collect(&path, root, out);
        } else if let Ok(rel) = path.strip_prefix(root) {
            let url = format!("/{}", rel.to_string_lossy().replace('\\', "/"));
            out.push((url, path));
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest.join("console");
    println!("cargo:rerun-if-changed=console");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let mut code = String::from(
        "/// The embedded console files: (URL path, bytes).\npub static FILES: &[(&str, &[u8])] = &[\n",
    );
    for (url, path) in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let _ = writeln!(
            code,
            "    ({url:?}, include_bytes!({:?})),",
            path.display().to_string()
        );
    }
    code.push_str("];\n");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("console_assets.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
