//! Unused dependencies (ARCHITECTURE.md, "Lints"): every dependency a workspace crate's manifest
//! declares is named by the sources of its kind — `[dependencies]` by `src/` outside its test
//! modules, `[dev-dependencies]` by tests, benches, examples or `src/`'s test modules,
//! `[build-dependencies]` by `build.rs` — as a path (`name::`), in `use name` or in
//! `extern crate name`; the few a source never names are in [`EXCEPTIONS`] with the reason. A
//! dev-dependency that repeats a normal one without adding features is redundant.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::metadata::{self, Dep, Kind, Package};
use super::{assert_no_violations, shipped_part};

/// Dependencies no source names, kept for a reason: (crate, dependency, kind, reason).
const EXCEPTIONS: &[(&str, &str, Kind, &str)] = &[];

/// A crate's Rust sources, by what may use which kind of dependency.
#[derive(Default)]
struct Sources {
    /// `src/` without its test modules: what ships.
    shipped: Vec<String>,
    /// `src/`'s test modules, `tests/`, `benches/`, `examples/`.
    tests: Vec<String>,
    /// `build.rs`.
    build: Vec<String>,
}

impl Sources {
    fn read(dir: &Path) -> Sources {
        let mut sources = Sources::default();
        for text in rust_files(&dir.join("src")) {
            let shipped = shipped_part(&text);
            sources.tests.push(text[shipped.len()..].to_owned());
            sources.shipped.push(shipped.to_owned());
        }
        for folder in ["tests", "benches", "examples"] {
            sources.tests.extend(rust_files(&dir.join(folder)));
        }
        sources
            .build
            .extend(std::fs::read_to_string(dir.join("build.rs")));
        sources
    }

    fn of(&self, kind: Kind) -> &[String] {
        match kind {
            Kind::Normal => &self.shipped,
            Kind::Dev => &self.tests,
            Kind::Build => &self.build,
        }
    }
}

/// The texts of the `.rs` files under `dir` (none when it does not exist), and of the files they
/// include from elsewhere with `#[path = "…"]` (a test sharing another crate's fixture module).
fn rust_files(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.map(|e| e.unwrap().path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut seen: BTreeSet<PathBuf> = files.iter().filter_map(|p| p.canonicalize().ok()).collect();
    let mut out = Vec::new();
    while let Some(path) = files.pop() {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for included in path_attributes(&text) {
            let included = path.parent().unwrap().join(included);
            if let Ok(canonical) = included.canonicalize()
                && seen.insert(canonical)
            {
                files.push(included);
            }
        }
        out.push(text);
    }
    out
}

/// The files `text` includes as modules with `#[path = "…"]`.
fn path_attributes(text: &str) -> Vec<&str> {
    text.match_indices("#[path = \"")
        .filter_map(|(at, marker)| text[at + marker.len()..].split_once('"'))
        .map(|(path, _)| path)
        .collect()
}

/// Whether `text` names the crate `ident` in code: `ident::…`, `use ident…` or
/// `extern crate ident` (comment lines left out).
fn uses(text: &str, ident: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .any(|line| {
            line.match_indices(ident).any(|(at, _)| {
                let before = &line[..at];
                let after = &line[at + ident.len()..];
                let in_path = before.strip_suffix("::").is_some_and(|b| b.ends_with(word));
                !before.ends_with(word)
                    && !in_path
                    && !after.starts_with(word)
                    && (after.starts_with("::")
                        || before.trim_end().ends_with("use")
                        || before.trim_end().ends_with("extern crate"))
            })
        })
}

/// The dependencies of `package` that no source of their kind names, less the [`EXCEPTIONS`].
fn unused(package: &Package, sources: &Sources) -> Vec<String> {
    let named = |dep: &Dep, kind: Kind| sources.of(kind).iter().any(|t| uses(t, &dep.ident()));
    let excepted = |dep: &Dep| {
        EXCEPTIONS
            .iter()
            .any(|(c, d, k, _)| *c == package.name && *d == dep.name && *k == dep.kind)
    };
    let repeats = |dep: &Dep| {
        dep.kind == Kind::Dev
            && dep.features.is_empty()
            && package
                .deps
                .iter()
                .any(|d| d.kind == Kind::Normal && d.name == dep.name && d.rename == dep.rename)
    };
    let mut violations = Vec::new();
    for dep in package.deps.iter().filter(|d| repeats(d)) {
        violations.push(format!(
            "{}'s Cargo.toml: the dev-dependency {} repeats its [dependencies] entry and adds no \
             feature: remove it (tests see the normal dependencies)",
            package.name, dep.name
        ));
    }
    for dep in package.deps.iter().filter(|d| !excepted(d) && !repeats(d)) {
        if named(dep, dep.kind) {
            continue;
        }
        let manifest = format!("{}'s Cargo.toml", package.name);
        violations.push(if dep.kind == Kind::Normal && named(dep, Kind::Dev) {
            format!(
                "{manifest}: {} is used only by tests: move it to [dev-dependencies]",
                dep.name
            )
        } else {
            format!(
                "{manifest}: no {} source names {} ({}): remove it, or list it in tidy's \
                 unused_deps::EXCEPTIONS with the reason it stays",
                match dep.kind {
                    Kind::Normal => "shipped (src/)",
                    Kind::Dev => "test (tests/, benches/, examples/, src/ test modules)",
                    Kind::Build => "build (build.rs)",
                },
                dep.name,
                dep.kind,
            )
        });
    }
    violations
}

#[test]
fn every_declared_dependency_is_used() {
    let violations = metadata::workspace()
        .iter()
        .flat_map(|p| unused(p, &Sources::read(&p.dir)))
        .collect();
    assert_no_violations("unused dependencies", violations);
}

#[test]
fn the_unused_dependency_rule_knows_a_crate_name_in_code() {
    assert!(uses("use serde::Deserialize;", "serde"));
    assert!(uses("    let v: serde_json::Value = x;", "serde_json"));
    assert!(uses("#[tokio::test]", "tokio"));
    assert!(uses("use parking_lot;", "parking_lot"));
    assert!(uses("extern crate libc;", "libc"));
    assert!(!uses("use serde_json::Value;", "serde"), "another crate");
    assert!(!uses("// tokio::spawn in a comment", "tokio"));
    assert!(!uses("let tokio = 1;", "tokio"), "a variable of that name");
    assert!(
        !uses("use crate::tokio::x;", "tokio"),
        "a module of that name"
    );
    assert_eq!(
        path_attributes("#[path = \"x/mod.rs\"]\nmod x;"),
        ["x/mod.rs"]
    );
}

/// A dependency of the made-up crate `deft-x`.
fn dep(name: &str, rename: Option<&str>, kind: Kind) -> Dep {
    Dep {
        name: name.into(),
        rename: rename.map(Into::into),
        kind,
        features: Vec::new(),
    }
}

/// The made-up crate `deft-x` in `dir`.
fn made_up(dir: &Path, deps: Vec<Dep>) -> Package {
    Package {
        name: "deft-x".into(),
        dir: dir.into(),
        deps,
    }
}

#[test]
fn the_unused_dependency_rule_reads_each_kind_in_its_sources() {
    let package = made_up(
        Path::new("/nowhere"),
        vec![
            dep("serde", None, Kind::Normal),
            dep("yaml_serde", Some("serde_yaml"), Kind::Normal),
            dep("deft-test-support", None, Kind::Dev),
            dep("png", None, Kind::Build),
            dep("tempfile", None, Kind::Normal),
        ],
    );
    let all_used = Sources {
        shipped: vec!["use serde::Serialize;\nfn a() { serde_yaml::from_str(\"\") }".into()],
        tests: vec!["use deft_test_support::repo_root;\nlet d = tempfile::tempdir();".into()],
        build: vec!["fn main() { png::Decoder::new(); }".into()],
    };
    assert_eq!(
        unused(&package, &all_used),
        ["deft-x's Cargo.toml: tempfile is used only by tests: move it to [dev-dependencies]"]
    );
    let none_used = Sources {
        shipped: vec!["use yaml_serde::Value;".into()],
        tests: vec!["use deft_test_support_x::y;".into()],
        build: vec!["fn main() {}".into()],
    };
    let found = unused(&package, &none_used);
    assert_eq!(found.len(), 5, "{found:#?}");
    assert!(
        found[1].contains("names yaml_serde (normal)"),
        "by its rename"
    );
    assert!(
        found[2].contains("names deft-test-support (dev)"),
        "{found:#?}"
    );
    assert!(
        found[3].contains("no build (build.rs) source names png"),
        "{found:#?}"
    );

    // A dev-dependency that repeats a normal one: redundant, unless it adds a feature.
    let mut repeated = made_up(
        Path::new("/nowhere"),
        vec![
            dep("serde", None, Kind::Normal),
            dep("serde", None, Kind::Dev),
        ],
    );
    let serde_everywhere = Sources {
        shipped: vec!["use serde::Serialize;".into()],
        tests: vec!["use serde::Deserialize;".into()],
        build: Vec::new(),
    };
    let found = unused(&repeated, &serde_everywhere);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].contains("the dev-dependency serde repeats"),
        "{found:#?}"
    );
    repeated.deps[1].features = vec!["derive".into()];
    assert_eq!(unused(&repeated, &serde_everywhere), Vec::<String>::new());
}

#[test]
fn the_unused_dependency_rule_reads_the_files_of_a_crate() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    // A dependency of the shipped code used only in a test module is a dev-dependency.
    write(
        "src/lib.rs",
        "//! x\nuse serde::Serialize;\n#[cfg(test)]\nmod tests { use tempfile::tempdir; }\n",
    );
    let normal = vec![
        dep("serde", None, Kind::Normal),
        dep("tempfile", None, Kind::Normal),
    ];
    let found = unused(&made_up(dir.path(), normal), &Sources::read(dir.path()));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].contains("tempfile is used only by tests"),
        "{found:#?}"
    );

    // A test that shares another crate's fixture module with `#[path]` uses its dependencies.
    write(
        "tests/a.rs",
        "//! a\n#[path = \"../other/fixture/mod.rs\"]\nmod fixture;\n",
    );
    write("other/fixture/mod.rs", "//! f\nuse proptest::prelude;\n");
    let shared = made_up(dir.path(), vec![dep("proptest", None, Kind::Dev)]);
    assert_eq!(
        unused(&shared, &Sources::read(dir.path())),
        Vec::<String>::new()
    );
}
