//! The workspace as `cargo metadata --no-deps` describes it: each package's name, folder and
//! the dependencies its manifest declares, with their kind. The crate-graph and unused-dependency
//! rules read it from here, and their own tests feed it made-up metadata.

use std::fmt;
use std::path::PathBuf;
use std::process::Command;

use deft_test_support::repo_root;
use serde_json::Value;

/// Which table of a manifest a dependency is declared in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `[dependencies]`: shipped with the crate.
    Normal,
    /// `[build-dependencies]`: used by `build.rs`.
    Build,
    /// `[dev-dependencies]`: tests, benches and examples only.
    Dev,
}

impl Kind {
    /// The kinds whose dependencies ship with a crate (what its users compile).
    pub fn ships(self) -> bool {
        matches!(self, Kind::Normal | Kind::Build)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Normal => "normal",
            Kind::Build => "build",
            Kind::Dev => "dev",
        })
    }
}

/// One dependency a manifest declares.
#[derive(Clone, Debug)]
pub struct Dep {
    /// The package's name (`yaml_serde` for `serde_yaml = { package = "yaml_serde" }`).
    pub name: String,
    /// The name the manifest gives it, when it renames the package (`serde_yaml`).
    pub rename: Option<String>,
    /// The table it is declared in.
    pub kind: Kind,
    /// The features this entry turns on.
    pub features: Vec<String>,
}

impl Dep {
    /// The name its sources use it by: the manifest's name with `-` turned into `_`.
    pub fn ident(&self) -> String {
        self.rename
            .as_deref()
            .unwrap_or(&self.name)
            .replace('-', "_")
    }
}

/// One workspace package.
#[derive(Clone, Debug)]
pub struct Package {
    /// The package's name (`deft-tasks`).
    pub name: String,
    /// The folder of its Cargo.toml.
    pub dir: PathBuf,
    /// What its manifest declares, every kind.
    pub deps: Vec<Dep>,
}

/// The workspace's packages, from the real `cargo metadata` of the repository (the `cargo` that
/// runs the tests — env `CARGO` — or the one on the `PATH`).
pub fn workspace() -> Vec<Package> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(&cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(repo_root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", cargo.to_string_lossy()));
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse(&String::from_utf8(out.stdout).unwrap())
}

/// The packages of a `cargo metadata --format-version 1` answer.
pub fn parse(json: &str) -> Vec<Package> {
    let metadata: Value = serde_json::from_str(json).unwrap();
    let mut packages: Vec<Package> = metadata["packages"]
        .as_array()
        .expect("cargo metadata lists `packages`")
        .iter()
        .map(package)
        .collect();
    packages.sort_by(|a, b| a.name.cmp(&b.name));
    packages
}

fn package(p: &Value) -> Package {
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let manifest = PathBuf::from(text(&p["manifest_path"]).unwrap_or_default());
    Package {
        name: text(&p["name"]).expect("a package has a name"),
        dir: manifest.parent().map(PathBuf::from).unwrap_or_default(),
        deps: p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|d| Dep {
                name: text(&d["name"]).expect("a dependency has a name"),
                rename: text(&d["rename"]),
                kind: match d["kind"].as_str() {
                    Some("dev") => Kind::Dev,
                    Some("build") => Kind::Build,
                    _ => Kind::Normal,
                },
                features: d["features"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(text)
                    .collect(),
            })
            .collect(),
    }
}
