//! The house rules that the compiler and clippy cannot check (ARCHITECTURE.md, "Lints"), in
//! the manner of rust-analyzer's tidy test: every source file says what it owns, model-facing
//! texts live in each crate's `texts` module, the lint escapes stay where they are allowed,
//! every crate inherits the workspace lints, and the repository holds its own design: no file
//! cites a design outside it, and every section of docs/design.md a file cites exists. The
//! crate graph is the one ARCHITECTURE.md allows (`tidy/graph.rs`), and every declared dependency
//! is used (`tidy/unused_deps.rs`); no page folder of the console imports another's
//! (`tidy/web_imports.rs`); no files of a crate import each other in a cycle, and texts modules
//! import nothing of their crate (`tidy/imports.rs`).

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

use std::path::{Path, PathBuf};
use std::process::Command;

use deft_test_support::repo_root;

#[path = "tidy/graph.rs"]
mod graph;
#[path = "tidy/metadata.rs"]
mod metadata;
#[path = "tidy/unused_deps.rs"]
mod unused_deps;
#[path = "tidy/web_imports.rs"]
mod web_imports;

/// Files that may hold `allow(unsafe_code)`: the one place std has no safe wrapper for.
const UNSAFE_ALLOWED: &[&str] = &["crates/backend-browser/src/launch.rs"];

/// Every `.rs` file under `crates/`, as (path relative to the repo, text).
fn sources() -> Vec<(String, String)> {
    let root = repo_root();
    let mut out = Vec::new();
    let mut stack = vec![root.join("crates")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = relative(&root, &path);
                // This file's own samples would match every rule.
                if rel != "crates/test-support/tests/tidy.rs" {
                    let text = std::fs::read_to_string(&path).unwrap();
                    out.push((rel, text));
                }
            }
        }
    }
    out.sort();
    out
}

fn relative(root: &Path, path: &Path) -> String {
    let root = root.canonicalize().unwrap();
    path.canonicalize()
        .unwrap()
        .strip_prefix(&root)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Whether `path` is test or benchmark code (integration tests, benches, fixtures).
fn is_test_code(path: &str) -> bool {
    path.contains("/tests/")
        || path.contains("/benches/")
        || path.starts_with("crates/test-support/")
}

/// The non-test part of a library source file: everything before its `#[cfg(test)]` module.
fn shipped_part(text: &str) -> &str {
    match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => text,
    }
}

fn assert_no_violations(rule: &str, violations: Vec<String>) {
    assert!(
        violations.is_empty(),
        "{rule}:\n  {}",
        violations.join("\n  ")
    );
}

#[test]
fn every_source_file_starts_with_a_module_doc() {
    let violations = sources()
        .into_iter()
        .filter(|(_, text)| !text.starts_with("//!"))
        .map(|(path, _)| {
            format!("{path}: the first line must be a `//!` comment saying what the file owns")
        })
        .collect();
    assert_no_violations("every source file says what it owns", violations);
}

/// Model-facing texts outside the texts module: a file named `messages.rs`, or a tool server
/// (`backend-*/src/server.rs`) with a description or error text written as a literal.
fn text_violations(path: &str, text: &str) -> Vec<String> {
    let mut violations = Vec::new();
    if path.ends_with("/messages.rs") {
        violations.push(format!(
            "{path}: a crate's texts module is named `texts` (one name across crates)"
        ));
    }
    if !path.ends_with("/src/server.rs") || !path.contains("/backend-") {
        return violations;
    }
    for (n, line) in shipped_part(text).lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let literal_after = |marker: &str| {
            code.match_indices(marker)
                .any(|(at, _)| code[at + marker.len()..].trim_start().starts_with('"'))
        };
        if literal_after("description =") || literal_after("description:") {
            violations.push(format!(
                "{path}:{}: a tool description literal; put it in texts.rs",
                n + 1
            ));
        }
        for error in ["Err(", "::error(", "failure(", "invalid_params("] {
            if literal_after(error) || code.contains(&format!("{error}format!(")) {
                violations.push(format!(
                    "{path}:{}: an error text literal; put it in texts.rs",
                    n + 1
                ));
            }
        }
    }
    violations
}

/// Lint escapes where they are not allowed: unsafe outside [`UNSAFE_ALLOWED`], unwrap and
/// print allowances outside tests (printing: outside the CLI), long-function allowances.
fn escape_violations(path: &str, text: &str) -> Vec<String> {
    let mut violations = Vec::new();
    let shipped = shipped_part(text);
    if shipped.contains("allow(unsafe_code)") && !UNSAFE_ALLOWED.contains(&path) {
        violations.push(format!(
            "{path}: unsafe code outside the allowed files (tidy.rs UNSAFE_ALLOWED)"
        ));
    }
    if is_test_code(path) {
        return violations;
    }
    for lint in [
        "clippy::unwrap_used",
        "clippy::print_stdout",
        "clippy::print_stderr",
    ] {
        let allowed_here = lint.starts_with("clippy::print") && path.starts_with("crates/cli/");
        if shipped.contains(&format!("allow({lint}")) && !allowed_here {
            violations.push(format!("{path}: allows {lint} outside tests"));
        }
    }
    for lint in ["clippy::too_many_lines", "clippy::too_many_arguments"] {
        if shipped.contains(lint) {
            violations.push(format!(
                "{path}: allows {lint}: split the function into named steps or pass a context struct"
            ));
        }
    }
    violations
}

#[test]
fn model_facing_texts_live_in_texts_modules() {
    let violations = sources()
        .iter()
        .flat_map(|(path, text)| text_violations(path, text))
        .collect();
    assert_no_violations("model-facing texts belong in texts.rs", violations);
}

#[test]
fn lint_escapes_stay_where_they_are_allowed() {
    let violations = sources()
        .iter()
        .flat_map(|(path, text)| escape_violations(path, text))
        .collect();
    assert_no_violations("lint escapes", violations);
}

#[test]
fn crates_that_need_no_unsafe_forbid_it() {
    let mut violations = Vec::new();
    for (path, text) in sources() {
        let is_root = path.ends_with("/src/lib.rs")
            || path.ends_with("/src/main.rs")
            || path.contains("/src/bin/");
        let needs_unsafe = UNSAFE_ALLOWED
            .iter()
            .any(|allowed| allowed.split("/src/").next() == path.split("/src/").next());
        if is_root && !needs_unsafe && !text.contains("#![forbid(unsafe_code)]") {
            violations.push(format!(
                "{path}: add #![forbid(unsafe_code)] (it needs none)"
            ));
        }
    }
    assert_no_violations("unsafe code", violations);
}

#[test]
fn every_crate_inherits_the_workspace_lints() {
    let crates = repo_root().join("crates");
    let mut violations = Vec::new();
    for entry in std::fs::read_dir(&crates).unwrap() {
        let manifest: PathBuf = entry.unwrap().path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        if !text.contains("[lints]\nworkspace = true") {
            violations.push(format!(
                "{}: add `[lints]\\nworkspace = true`",
                relative(&repo_root(), &manifest)
            ));
        }
    }
    assert_no_violations("workspace lints", violations);
}

/// The design file the repository used to cite from outside itself, the folder it lived in, and
/// the reference notes beside it. No file may name them: docs/design.md is the design. Spelled in pieces so that this
/// file, which is scanned too, does not name them.
const OUTSIDE_DESIGN: [&str; 4] = [
    concat!("DESIGN", ".md"),
    concat!("..", "/shared/"),
    // The team's reference notes on UFO and on the platforms, beside the design: not in the
    // repository either.
    concat!("ufo", ".md"),
    concat!("platforms", ".md"),
];

/// The repository's own design, whose sections files cite as its path followed by a space and a
/// quoted heading, or link to by its file name, `#` and the heading's anchor.
const DESIGN_DOC: &str = "docs/design.md";

/// Every file git would commit (tracked, or new and not ignored), as paths relative to the
/// repository; files deleted from the work tree are left out.
fn repository_files() -> Vec<String> {
    let root = repo_root();
    // `safe.directory`: the clone may belong to another user than the one running the tests.
    let out = Command::new("git")
        .args(["-c", "safe.directory=*", "-C"])
        .arg(&root)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .unwrap_or_else(|e| panic!("cannot run git (the tidy test lists files with it): {e}"));
    assert!(
        out.status.success(),
        "git ls-files failed in {}: {}",
        root.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .split('\0')
        .filter(|p| !p.is_empty() && root.join(p).is_file())
        .map(str::to_owned)
        .collect();
    files.sort();
    files.dedup();
    files
}

/// Lines of `text` that name the outside design file or its folder.
fn outside_design_violations(path: &str, text: &str) -> Vec<String> {
    if path == "Cargo.lock" {
        return Vec::new();
    }
    let mut violations = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for needle in OUTSIDE_DESIGN
            .iter()
            .filter(|needle| line.contains(*needle))
        {
            violations.push(format!(
                "{path}:{}: names `{needle}`, which is outside the repository; cite {DESIGN_DOC} \
                 and the heading of its section instead",
                n + 1
            ));
        }
    }
    violations
}

/// The headings of a Markdown text (fenced code left out), without their `#`s.
fn headings(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(line.trim_start_matches('#').trim().to_owned());
        }
    }
    out
}

/// The anchor a Markdown renderer (GitHub's) gives a heading: lower case, letters, digits,
/// `-` and `_` kept, spaces turned into `-`, everything else dropped.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Citations of a section of docs/design.md in `text` that name no heading of it: the file's
/// name followed by a space and a quoted heading, or by `#` and an anchor.
fn section_violations(path: &str, text: &str, sections: &[String]) -> Vec<String> {
    let name = DESIGN_DOC.rsplit('/').next().unwrap();
    let anchors: Vec<String> = sections.iter().map(|s| anchor(s)).collect();
    let mut violations = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |what: String| format!("{path}:{}: {what}", n + 1);
        for (i, _) in line.match_indices(name) {
            let rest = &line[i + name.len()..];
            if let Some(quoted) = rest.strip_prefix(" \"") {
                match quoted.split_once('"') {
                    None => violations.push(at(format!(
                        "a section of {DESIGN_DOC} is cited with its quoted heading split across \
                         lines; keep the heading on the line of the file's name"
                    ))),
                    Some((section, _)) if !sections.iter().any(|s| s == section) => {
                        violations.push(at(format!(
                            "cites the section \"{section}\" of {DESIGN_DOC}, which has no such \
                             heading; cite one of its headings as written"
                        )));
                    }
                    Some(_) => {}
                }
            } else if let Some(link) = rest.strip_prefix('#') {
                let end = link
                    .find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
                    .unwrap_or(link.len());
                let wanted = &link[..end];
                if !anchors.iter().any(|a| a == wanted) {
                    violations.push(at(format!(
                        "links to #{wanted} of {DESIGN_DOC}, which has no heading with that \
                         anchor"
                    )));
                }
            }
        }
    }
    violations
}

#[test]
fn the_repository_holds_its_own_design() {
    let root = repo_root();
    let design = std::fs::read_to_string(root.join(DESIGN_DOC)).unwrap();
    let sections = headings(&design);
    let mut violations = Vec::new();
    for path in repository_files() {
        let bytes = std::fs::read(root.join(&path)).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        violations.extend(outside_design_violations(&path, &text));
        violations.extend(section_violations(&path, &text, &sections));
    }
    assert_no_violations("the repository holds its own design", violations);
}

#[test]
fn the_design_rules_catch_what_they_are_for() {
    let [file, folder, notes, _] = OUTSIDE_DESIGN;
    let noted = format!("//! Task files ({notes} §13.3): the fields.");
    assert_eq!(
        outside_design_violations("crates/x/src/a.rs", &noted).len(),
        1
    );
    let cited = format!("//! The Dispatcher seam ({file} \"Dispatcher\").");
    assert_eq!(
        outside_design_violations("crates/x/src/a.rs", &cited).len(),
        1
    );
    let pointed = format!("watches. `{}{file}` is the full design", &folder[3..]);
    assert_eq!(
        outside_design_violations("ARCHITECTURE.md", &pointed).len(),
        1
    );
    assert_eq!(
        outside_design_violations("docs/x.md", &format!("see {folder}{file}")).len(),
        2
    );
    assert_eq!(outside_design_violations("Cargo.lock", &cited).len(), 0);
    let ours = format!("//! The Dispatcher seam ({DESIGN_DOC} \"Dispatcher\").");
    assert_eq!(
        outside_design_violations("crates/x/src/a.rs", &ours).len(),
        0
    );

    let design =
        "# deft\n## Contracts\n### Device, profile, directory\n```\n# not a heading\n```\n";
    let sections = headings(design);
    assert_eq!(
        sections,
        ["deft", "Contracts", "Device, profile, directory"]
    );
    assert_eq!(anchor(&sections[2]), "device-profile-directory");
    let cite = |s: &str| format!("//! Devices ({DESIGN_DOC} \"{s}\"): what a run operates.");
    let check = |text: &str| section_violations("crates/x/src/a.rs", text, &sections).len();
    assert_eq!(check(&cite("Device, profile, directory")), 0);
    assert_eq!(check(&cite("Devices")), 1, "a heading that does not exist");
    assert_eq!(
        check(&cite("not a heading")),
        1,
        "fenced code is no heading"
    );
    assert_eq!(
        check(&format!("({DESIGN_DOC} \"Device,\n//! profile\")")),
        1
    );
    assert_eq!(
        check(&format!("[it]({DESIGN_DOC}#device-profile-directory)")),
        0
    );
    assert_eq!(check(&format!("[it]({DESIGN_DOC}#devices)")), 1);
    assert_eq!(
        check(&format!("[`{DESIGN_DOC}`]({DESIGN_DOC}) is the design")),
        0
    );
}

#[test]
fn the_rules_catch_what_they_are_for() {
    // Each scan must be able to fail: feed it what it looks for, and what it must let pass.
    let server = "crates/backend-x/src/server.rs";
    let described = "    #[tool(name = \"click\", description = \"Click a control\")]";
    assert_eq!(text_violations(server, described).len(), 1);
    assert_eq!(
        text_violations(server, "    #[tool(description = texts::CLICK)]").len(),
        0
    );
    let erring = "        return Err(format!(\"no window {id}\"));\n        Err(\"gone\".into())";
    assert_eq!(text_violations(server, erring).len(), 2);
    assert_eq!(
        text_violations(server, "        Err(texts::gone(id))").len(),
        0
    );
    let tested = "fn a() {}\n#[cfg(test)]\nmod tests { fn b() { Err(\"x\") } }";
    assert_eq!(
        text_violations(server, tested).len(),
        0,
        "test modules may hold literals"
    );
    assert_eq!(text_violations("crates/x/src/messages.rs", "").len(), 1);
    assert_eq!(text_violations("crates/x/src/run.rs", described).len(), 0);

    let lib = "crates/tools/src/pool.rs";
    assert_eq!(
        escape_violations(lib, "#![allow(clippy::unwrap_used)]").len(),
        1
    );
    assert_eq!(
        escape_violations("crates/tools/tests/a.rs", "#![allow(clippy::unwrap_used)]").len(),
        0
    );
    assert_eq!(escape_violations(lib, "#[allow(unsafe_code)]").len(), 1);
    assert_eq!(
        escape_violations(UNSAFE_ALLOWED[0], "#[allow(unsafe_code)]").len(),
        0
    );
    assert_eq!(
        escape_violations(lib, "#[allow(clippy::print_stdout)]").len(),
        1
    );
    assert_eq!(
        escape_violations("crates/cli/src/main.rs", "#![allow(clippy::print_stdout)]").len(),
        0
    );
    assert_eq!(
        escape_violations(lib, "#[allow(clippy::too_many_arguments)]").len(),
        1
    );
}

#[path = "tidy/imports.rs"]
mod imports;

/// The files of one crate's `src`, as (path under `src/`, text).
fn crate_sources(krate: &str) -> Vec<(String, String)> {
    let prefix = format!("crates/{krate}/src/");
    sources()
        .into_iter()
        .filter_map(|(path, text)| Some((path.strip_prefix(&prefix)?.to_owned(), text)))
        .collect()
}

/// Every crate of the workspace: each folder under `crates/` with a `src` folder, so a new crate
/// is checked without anyone listing it.
fn crate_folders() -> Vec<String> {
    let crates = repo_root().join("crates");
    let mut out: Vec<String> = std::fs::read_dir(&crates)
        .unwrap_or_else(|e| panic!("{}: {e}", crates.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("src").is_dir())
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

#[test]
fn no_files_of_a_crate_import_each_other_in_a_cycle() {
    let krates = crate_folders();
    assert!(
        krates.iter().any(|k| k == "tools") && krates.iter().any(|k| k == "test-support"),
        "the crate list is read from crates/: {krates:?}"
    );
    let mut violations = Vec::new();
    for krate in &krates {
        for cycle in imports::cycles(&imports::graph(&crate_sources(krate))) {
            violations.push(format!("crates/{krate}/src: {cycle}"));
        }
    }
    assert_no_violations(
        "files that import each other in a cycle (move what both need to a module of its own)",
        violations,
    );
}

#[test]
fn texts_modules_import_nothing_of_their_crate() {
    let mut violations = Vec::new();
    for krate in crate_folders() {
        for import in imports::texts_imports(&imports::graph(&crate_sources(&krate))) {
            violations.push(format!("crates/{krate}/src: {import}"));
        }
    }
    assert_no_violations(
        "texts modules that import their crate's types (take plain values: &str, numbers)",
        violations,
    );
}

#[test]
fn the_texts_import_rule_catches_what_it_is_for() {
    let files: Vec<(String, String)> = [
        ("lib.rs", "mod step;\nmod texts;"),
        (
            "texts.rs",
            "pub fn gone(id: &str) -> String { format!(\"{id} is gone\") }",
        ),
        ("step.rs", "use crate::texts;"),
        (
            "runner/texts.rs",
            "use crate::step::Kind;\nuse crate::texts::GONE;",
        ),
        ("texts/describe.rs", "use super::GONE;"),
        (
            "b/texts.rs",
            "#[cfg(test)]\nmod tests { use crate::step::Kind; }",
        ),
    ]
    .iter()
    .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
    .collect();
    assert_eq!(
        imports::texts_imports(&imports::graph(&files)),
        ["runner/texts.rs → step.rs"]
    );
    assert!(imports::is_texts("texts.rs") && imports::is_texts("texts/describe.rs"));
    assert!(!imports::is_texts("context.rs") && !imports::is_texts("texts_of/a.rs"));
}

#[test]
fn the_import_cycle_rule_catches_what_it_is_for() {
    let files = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
            .collect()
    };
    let cycles = |list: &[(&str, &str)]| imports::cycles(&imports::graph(&files(list)));

    // two files through `use crate::` and `use super::`
    let two = [
        ("lib.rs", "mod a;\nmod b;"),
        ("a.rs", "use crate::b::X;"),
        ("b.rs", "use super::a::Y;"),
    ];
    assert_eq!(cycles(&two), ["a.rs → b.rs → a.rs"]);

    // a `use` group and a path in an expression count too; the path names the deepest module
    let three = [
        ("lib.rs", ""),
        ("x/mod.rs", "use crate::{y::Z, lib_item};"),
        ("y.rs", "fn f() { crate::x::inner::w(); }"),
        ("x/inner.rs", "pub fn w() -> super::V { todo() }"),
    ];
    assert_eq!(
        cycles(&three),
        ["x/inner.rs → x/mod.rs → y.rs → x/inner.rs"]
    );

    // comments, strings, `$crate` and test modules are no imports; one-way imports no cycle
    let quiet = [
        ("lib.rs", ""),
        (
            "a.rs",
            "// use crate::b;\n/* crate::b::X */\nconst S: &str = \"crate::b::X\";\nmacro_rules! m { () => { $crate::b::X } }\nuse crate::c::C;",
        ),
        (
            "b.rs",
            "use crate::a::A;\n#[cfg(test)]\nmod tests { use crate::b::B; }",
        ),
        ("c.rs", "#[cfg(test)]\nmod tests { use crate::a::A; }"),
    ];
    assert_eq!(cycles(&quiet), Vec::<String>::new());
    let graph = imports::graph(&files(&quiet));
    assert_eq!(graph["a.rs"].iter().collect::<Vec<_>>(), ["c.rs"]);
    assert_eq!(graph["b.rs"].iter().collect::<Vec<_>>(), ["a.rs"]);

    // a knot larger than the cycle named is listed whole
    let knot = [
        ("lib.rs", ""),
        ("a.rs", "use crate::b::B; use crate::c::C;"),
        ("b.rs", "use crate::a::A;"),
        ("c.rs", "use crate::a::A;"),
    ];
    assert_eq!(
        cycles(&knot),
        ["a.rs → b.rs → a.rs (all files of this knot: a.rs, b.rs, c.rs)"]
    );
}
