//! The house rules that the compiler and clippy cannot check (ARCHITECTURE.md, "Lints"), in
//! the manner of rust-analyzer's tidy test: every source file says what it owns, model-facing
//! texts live in each crate's `texts` module, the lint escapes stay where they are allowed, and
//! every crate inherits the workspace lints.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

use std::path::{Path, PathBuf};

use deft_test_support::repo_root;

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
