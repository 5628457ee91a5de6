//! The crate graph (ARCHITECTURE.md, "The crate graph"): every dependency of a workspace crate on
//! another is one its "Allowed dependencies" list names, or one of the edges "being removed";
//! every listed edge exists; and the allowed list itself keeps the [`RULES`], so an edge that
//! breaks one cannot be slipped in by adding it to the list.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use deft_test_support::repo_root;

use super::assert_no_violations;
use super::metadata::{self, Kind, Package};

/// The document that holds the lists, and their headings.
const DOC: &str = "ARCHITECTURE.md";
const ALLOWED: &str = "Allowed dependencies";
const REMOVING: &str = "Edges being removed (issue 27)";

/// One dependency of a workspace crate on another.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: String,
    to: String,
    kind: Kind,
}

impl std::fmt::Display for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} → {} ({})", self.from, self.to, self.kind)
    }
}

/// A list of the document: the crates it has a line for, and the edges those lines name.
#[derive(Default)]
struct List {
    crates: BTreeSet<String>,
    edges: BTreeSet<Edge>,
}

/// Whether a rule looks at a crate's own dependencies, or at everything they bring in too.
#[derive(Clone, Copy)]
enum Reach {
    Direct,
    Transitive,
}

/// A rule the allowed graph keeps, over the edges that ship (normal and build: what a crate's
/// users compile); dev-dependencies are free to bring real devices into tests.
struct Rule {
    /// What the rule says, as ARCHITECTURE.md says it.
    says: &'static str,
    /// The crates it binds (`*`: every crate).
    crates: &'static [&'static str],
    /// What they may not depend on (`deft-backend-*`: every backend; `*`: every crate).
    forbidden: &'static [&'static str],
    reach: Reach,
}

/// The rules (ARCHITECTURE.md, "The crate graph").
const RULES: &[Rule] = &[
    Rule {
        says: "deft-protocol depends on no deft crate",
        crates: &["deft-protocol"],
        forbidden: &["*"],
        reach: Reach::Direct,
    },
    Rule {
        says: "deft-tools knows no model, store, server, task or device link",
        crates: &["deft-tools"],
        forbidden: &[
            "deft-agent",
            "deft-store",
            "deft-server",
            "deft-memory",
            "deft-trace",
            "deft-app",
            "deft-link",
            "deft-tasks",
            "deft-designer",
            "deft-dataflow",
            "deft",
        ],
        reach: Reach::Transitive,
    },
    Rule {
        says: "deft-agent reaches neither store, memory, trace, tasks nor designer",
        crates: &["deft-agent"],
        forbidden: &[
            "deft-store",
            "deft-memory",
            "deft-trace",
            "deft-tasks",
            "deft-designer",
        ],
        reach: Reach::Transitive,
    },
    Rule {
        says: "deft-tasks reaches no store, agent, backend or device link",
        crates: &["deft-tasks"],
        forbidden: &["deft-store", "deft-agent", "deft-backend-*", "deft-link"],
        reach: Reach::Transitive,
    },
    Rule {
        says: "deft-dataflow reaches devices only through tools",
        crates: &["deft-dataflow"],
        forbidden: &["deft-backend-*", "deft-link"],
        reach: Reach::Transitive,
    },
    Rule {
        says: "deft-designer reaches no store",
        crates: &["deft-designer"],
        forbidden: &["deft-store"],
        reach: Reach::Transitive,
    },
    Rule {
        says: "deft-server depends on neither designer, memory, trace nor tasks (only through deft-app)",
        crates: &["deft-server"],
        forbidden: &["deft-designer", "deft-memory", "deft-trace", "deft-tasks"],
        reach: Reach::Direct,
    },
    Rule {
        says: "deft (the CLI) depends on neither store nor memory",
        crates: &["deft"],
        forbidden: &["deft-store", "deft-memory"],
        reach: Reach::Direct,
    },
    Rule {
        says: "deft-test-support is only ever a dev-dependency",
        crates: &["*"],
        forbidden: &["deft-test-support"],
        reach: Reach::Direct,
    },
];

fn matches(patterns: &[&str], name: &str) -> bool {
    patterns.iter().any(|p| match p.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => *p == name,
    })
}

/// The dependencies of workspace crates on workspace crates.
fn actual_edges(packages: &[Package]) -> BTreeSet<Edge> {
    let names: BTreeSet<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    packages
        .iter()
        .flat_map(|p| {
            p.deps
                .iter()
                .filter(|d| names.contains(d.name.as_str()))
                .map(|d| Edge {
                    from: p.name.clone(),
                    to: d.name.clone(),
                    kind: d.kind,
                })
        })
        .collect()
}

/// The text under the heading `### {heading}`, up to the next heading.
fn section<'a>(markdown: &'a str, heading: &str) -> Option<&'a str> {
    let start = markdown.find(&format!("\n### {heading}\n"))? + heading.len() + 6;
    let rest = &markdown[start..];
    let end = rest.find("\n#").map_or(rest.len(), |at| at + 1);
    Some(&rest[..end])
}

/// The list under `### {heading}`: one line per crate,
/// `` - `deft-x` → `deft-a`, `deft-b`; dev: `deft-c`; build: `deft-d` `` (`nothing` for none).
/// Lines that do not start with `- ` are prose.
fn parse_list(markdown: &str, heading: &str) -> Result<List, Vec<String>> {
    let Some(text) = section(markdown, heading) else {
        return Err(vec![format!(
            "{DOC} has no `### {heading}` section: the crate graph's lists live there"
        )]);
    };
    let mut list = List::default();
    let mut errors = Vec::new();
    for line in text.lines().filter_map(|l| l.strip_prefix("- ")) {
        let line = line.replace('`', "");
        let Some((from, to)) = line.split_once('→') else {
            errors.push(format!(
                "{DOC} \"{heading}\": `- {line}` has no `→`; write `- crate → dep, dep; dev: dep`"
            ));
            continue;
        };
        let from = from.trim().to_owned();
        if !list.crates.insert(from.clone()) {
            errors.push(format!(
                "{DOC} \"{heading}\": {from} has two lines; give it one"
            ));
        }
        for (n, part) in to.split(';').enumerate() {
            let part = part.trim();
            let (kind, names) = match (n, part.split_once(':')) {
                (0, None) => (Kind::Normal, part),
                (_, Some(("dev", names))) => (Kind::Dev, names),
                (_, Some(("build", names))) => (Kind::Build, names),
                _ => {
                    errors.push(format!(
                        "{DOC} \"{heading}\": {from}'s `{part}`: after the normal dependencies \
                         come `; dev: …` and `; build: …`"
                    ));
                    continue;
                }
            };
            for to in names.split(',').map(str::trim).filter(|t| *t != "nothing") {
                list.edges.insert(Edge {
                    from: from.clone(),
                    to: to.to_owned(),
                    kind,
                });
            }
        }
    }
    if errors.is_empty() {
        Ok(list)
    } else {
        Err(errors)
    }
}

/// Where `from` leads through the shipped edges of `edges`, each crate with the path to it.
fn reachable(edges: &BTreeSet<Edge>, from: &str) -> BTreeMap<String, Vec<String>> {
    let mut paths: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut queue = VecDeque::from([vec![from.to_owned()]]);
    while let Some(path) = queue.pop_front() {
        let last = path.last().expect("a path starts at its crate").clone();
        for edge in edges.iter().filter(|e| e.from == last && e.kind.ships()) {
            if edge.to != from && !paths.contains_key(&edge.to) {
                let mut next = path.clone();
                next.push(edge.to.clone());
                paths.insert(edge.to.clone(), next.clone());
                queue.push_back(next);
            }
        }
    }
    paths
}

/// The rules `edges` breaks, each with the path that breaks it.
fn rule_violations(edges: &BTreeSet<Edge>) -> Vec<String> {
    let crates: BTreeSet<&str> = edges.iter().map(|e| e.from.as_str()).collect();
    let mut violations = Vec::new();
    for rule in RULES {
        for from in crates.iter().filter(|c| matches(rule.crates, c)) {
            let mut reached = reachable(edges, from);
            if let Reach::Direct = rule.reach {
                reached.retain(|_, path| path.len() == 2);
            }
            for (to, path) in reached.iter().filter(|(to, _)| matches(rule.forbidden, to)) {
                let kinds: Vec<String> = edges
                    .iter()
                    .filter(|e| e.from == path[path.len() - 2] && e.to == *to && e.kind.ships())
                    .map(|e| e.kind.to_string())
                    .collect();
                violations.push(format!(
                    "rule \"{}\": {} ({})",
                    rule.says,
                    path.join(" → "),
                    kinds.join(", ")
                ));
            }
        }
    }
    violations
}

/// Everything wrong with the workspace's crate graph against the document's two lists.
fn graph_violations(packages: &[Package], allowed: &List, removing: &List) -> Vec<String> {
    let actual = actual_edges(packages);
    let names: BTreeSet<String> = packages.iter().map(|p| p.name.clone()).collect();
    let mut violations = Vec::new();
    for name in names.difference(&allowed.crates) {
        violations.push(format!(
            "{name} has no line under {DOC} \"{ALLOWED}\": add `- {name} → …` with the crates \
             it may depend on (`nothing` for none)"
        ));
    }
    for name in allowed.crates.union(&removing.crates) {
        if !names.contains(name) {
            violations.push(format!(
                "{DOC} lists {name}, which is no workspace crate: remove its line"
            ));
        }
    }
    for edge in actual.difference(&allowed.edges.union(&removing.edges).cloned().collect()) {
        violations.push(format!(
            "{edge}: {DOC} \"{ALLOWED}\" does not allow it; remove the dependency, or, if the \
             design changed, add it to {}'s line (the rules of \"The crate graph\" must still hold)",
            edge.from
        ));
    }
    for edge in allowed.edges.difference(&actual) {
        violations.push(format!(
            "{edge} is listed under {DOC} \"{ALLOWED}\" but {}'s Cargo.toml has no such \
             dependency: remove it from the list, so the list stays true",
            edge.from
        ));
    }
    for edge in removing.edges.difference(&actual) {
        violations.push(format!(
            "{edge} is gone: delete it from {DOC} \"{REMOVING}\" (and the line, once empty)"
        ));
    }
    for edge in removing.edges.intersection(&allowed.edges) {
        violations.push(format!(
            "{edge} is both allowed and being removed in {DOC}: keep it in one list"
        ));
    }
    violations.extend(rule_violations(&allowed.edges));
    for edge in removing.edges.difference(&allowed.edges) {
        let mut with = allowed.edges.clone();
        with.insert(edge.clone());
        if rule_violations(&with).len() == rule_violations(&allowed.edges).len() {
            violations.push(format!(
                "{edge} is listed under {DOC} \"{REMOVING}\" but breaks no rule: move it to \
                 \"{ALLOWED}\""
            ));
        }
    }
    violations
}

#[test]
fn the_crate_graph_is_the_documented_one() {
    let doc = std::fs::read_to_string(repo_root().join(DOC)).unwrap();
    let lists = parse_list(&doc, ALLOWED).and_then(|a| Ok((a, being_removed(&doc)?)));
    let violations = match lists {
        Ok((allowed, removing)) => graph_violations(&metadata::workspace(), &allowed, &removing),
        Err(errors) => errors,
    };
    assert_no_violations("the crate graph", violations);
}

/// The temporary list of edges being removed: none once its section is gone.
fn being_removed(markdown: &str) -> Result<List, Vec<String>> {
    match section(markdown, REMOVING) {
        Some(_) => parse_list(markdown, REMOVING),
        None => Ok(List::default()),
    }
}

#[test]
fn without_edges_being_removed_the_section_may_go() {
    let doc = "# A\n### Allowed dependencies\n- `deft-protocol` → nothing\n## Next\n";
    assert!(being_removed(doc).unwrap().edges.is_empty());
    assert_eq!(being_removed(MADE_UP_DOC).unwrap().edges.len(), 1);
}

/// A made-up `cargo metadata` answer: each package with its dependencies as (name, kind).
fn made_up(packages: &[(&str, &[(&str, &str)])]) -> Vec<Package> {
    let packages: Vec<serde_json::Value> = packages
        .iter()
        .map(|(name, deps)| {
            let deps: Vec<serde_json::Value> = deps
                .iter()
                .map(|(dep, kind)| {
                    let kind = if *kind == "normal" { None } else { Some(*kind) };
                    serde_json::json!({ "name": dep, "kind": kind, "rename": null })
                })
                .collect();
            serde_json::json!({
                "name": name,
                "manifest_path": format!("/r/crates/{name}/Cargo.toml"),
                "dependencies": deps,
            })
        })
        .collect();
    metadata::parse(&serde_json::json!({ "packages": packages }).to_string())
}

/// The made-up document of the tests: a small allowed graph, and deft-tasks → deft-store being
/// removed (with prose, and a list under the next heading that is not the graph's).
const MADE_UP_DOC: &str = "# A\n### Allowed dependencies\nThe list.\n\
                           - `deft-protocol` → nothing\n\
                           - `deft-tools` → `deft-protocol`; dev: `deft-test-support`\n\
                           - `deft-tasks` → `deft-protocol`, `deft-tools`\n\
                           - `deft-designer` → `deft-tasks`\n\
                           - `deft-store` → `deft-protocol`\n\
                           - `deft-test-support` → nothing\n\
                           ### Edges being removed (issue 27)\n- `deft-tasks` → `deft-store`\n\
                           ## Next\n- `deft-x` → `deft-y`\n";

/// The made-up document's two lists.
fn made_up_lists() -> (List, List) {
    let allowed = parse_list(MADE_UP_DOC, ALLOWED).unwrap();
    let removing = parse_list(MADE_UP_DOC, REMOVING).unwrap();
    assert_eq!(allowed.crates.len(), 6, "the list ends at the next heading");
    (allowed, removing)
}

/// The made-up workspace, deft-tasks with `extra` dependencies beside protocol and tools.
fn made_up_workspace(extra: &[(&str, &str)]) -> Vec<Package> {
    let mut tasks = vec![("deft-protocol", "normal"), ("deft-tools", "normal")];
    tasks.extend_from_slice(extra);
    let tools = [
        ("deft-protocol", "normal"),
        ("deft-test-support", "dev"),
        ("serde", "normal"),
    ];
    made_up(&[
        ("deft-protocol", &[]),
        ("deft-tools", &tools),
        ("deft-tasks", &tasks),
        ("deft-designer", &[("deft-tasks", "normal")]),
        ("deft-store", &[("deft-protocol", "normal")]),
        ("deft-test-support", &[]),
    ])
}

fn edge(from: &str, to: &str, kind: Kind) -> Edge {
    Edge {
        from: from.into(),
        to: to.into(),
        kind,
    }
}

#[test]
fn the_crate_graph_check_names_each_difference() {
    let (allowed, removing) = made_up_lists();
    let check = |extra: &[(&str, &str)], allowed: &List| {
        graph_violations(&made_up_workspace(extra), allowed, &removing)
    };
    let today = [("deft-store", "normal")];
    // The graph as listed, with the edge being removed still there.
    assert_eq!(check(&today, &allowed), Vec::<String>::new());

    // A crate with no line, whose edges are then unlisted too.
    let mut unlined = List {
        crates: allowed.crates.clone(),
        edges: allowed.edges.clone(),
    };
    unlined.crates.remove("deft-store");
    unlined.edges.retain(|e| e.from != "deft-store");
    let found = check(&today, &unlined);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].starts_with("deft-store has no line"), "{found:#?}");
    assert!(found[1].starts_with("deft-store → deft-protocol (normal): "));

    // The edge being removed is gone: its line must go too.
    let gone = check(&[], &allowed);
    assert_eq!(gone.len(), 1, "{gone:#?}");
    assert!(gone[0].contains("deft-tasks → deft-store (normal) is gone"));

    // A dependency nobody listed: named with its kind.
    let unlisted = check(
        &[("deft-store", "normal"), ("deft-test-support", "dev")],
        &allowed,
    );
    assert_eq!(unlisted.len(), 1, "{unlisted:#?}");
    assert!(unlisted[0].starts_with("deft-tasks → deft-test-support (dev): "));

    // A listed edge that no longer exists.
    let mut stale = List {
        crates: allowed.crates.clone(),
        edges: allowed.edges.clone(),
    };
    stale
        .edges
        .insert(edge("deft-designer", "deft-protocol", Kind::Normal));
    let found = check(&today, &stale);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].contains("deft-designer → deft-protocol (normal) is listed"));
}

#[test]
fn the_crate_graph_rules_hold_over_the_allowed_list() {
    let (allowed, removing) = made_up_lists();
    // The edge being removed, allowed, breaks two rules (deft-tasks directly, deft-designer
    // through it), each named with its path.
    let mut slipped = allowed.edges.clone();
    slipped.insert(edge("deft-tasks", "deft-store", Kind::Normal));
    assert_eq!(
        rule_violations(&slipped),
        [
            "rule \"deft-tasks reaches no store, agent, backend or device link\": \
             deft-tasks → deft-store (normal)",
            "rule \"deft-designer reaches no store\": deft-designer → deft-tasks → deft-store (normal)",
        ]
    );
    // A dev-dependency on a store or a backend ships nothing: allowed.
    let mut dev = allowed.edges.clone();
    dev.insert(edge("deft-tasks", "deft-backend-shell", Kind::Dev));
    assert_eq!(rule_violations(&dev), Vec::<String>::new());
    // deft-test-support: as a dev-dependency fine, as a normal or build one not.
    for kind in [Kind::Normal, Kind::Build] {
        let mut shipped = allowed.edges.clone();
        shipped.insert(edge("deft-tools", "deft-test-support", kind));
        let broken = rule_violations(&shipped);
        assert_eq!(broken.len(), 1, "{broken:#?}");
        assert!(broken[0].contains("only ever a dev-dependency\": deft-tools → deft-test-support"));
    }
    assert!(matches(&["deft-backend-*"], "deft-backend-office"));
    assert!(!matches(&["deft-backend-*"], "deft-backend"));
    assert!(matches(&["*"], "deft"));

    // An edge listed as being removed that breaks no rule belongs in the allowed list.
    let harmless = List {
        crates: removing.crates.clone(),
        edges: [edge("deft-tasks", "deft-protocol", Kind::Normal)].into(),
    };
    let moved = List {
        crates: allowed.crates.clone(),
        edges: BTreeSet::new(),
    };
    let workspace = made_up(&[("deft-tasks", &[("deft-protocol", "normal")])]);
    let found = graph_violations(&workspace, &moved, &harmless);
    assert!(
        found.iter().any(|l| l.contains("breaks no rule")),
        "{found:#?}"
    );
}

#[test]
fn the_crate_graph_lists_name_the_lines_they_cannot_read() {
    let bad = parse_list(
        "# A\n### Allowed dependencies\n- deft-tasks: deft-tools\n- a → b; tests: c\n",
        ALLOWED,
    );
    assert_eq!(bad.err().map(|e| e.len()), Some(2));
    let twice = parse_list("# A\n### Allowed dependencies\n- a → b\n- a → c\n", ALLOWED);
    assert_eq!(twice.err().map(|e| e.len()), Some(1));
    assert!(parse_list("# Nothing here\n", ALLOWED).is_err());
}
