//! Routing-table loading: good tables, and every kind of bad one with its message.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

use std::time::Duration;

use deft_tools::table::{DEFAULT_TABLE_NAME, RoutingTable, ServerKind, TableError};

const GOOD: &str = r#"
timeouts: {tool_default_secs: 60, grace_secs: 5, batch_secs: 300}
profiles:
  shell:
    HostAgent:
      default:
        data_collection:
          - {namespace: shell, type: builtin, name: shell, tools: [get_system_info]}
        action:
          - {namespace: shell, type: builtin, name: shell, tools: [run_shell], timeouts: {run_shell: 20}}
          - namespace: remote
            type: http
            url: http://127.0.0.1:9/mcp
            headers: {Authorization: Bearer x}
      mousepad:
        action:
          - {namespace: editor, type: stdio, command: /usr/bin/editor-mcp, args: [--fast], env: {A: b}, cwd: /tmp, reset: true}
"#;

fn parse_err(yaml: &str) -> String {
    RoutingTable::parse(yaml, "tools.yaml")
        .unwrap_err()
        .to_string()
}

#[test]
fn builtin_table_is_valid_and_gives_every_profile_the_shell_tools() {
    let t = RoutingTable::builtin();
    assert_eq!(t.source, DEFAULT_TABLE_NAME);
    for profile in ["shell", "desktop", "browser"] {
        for agent in ["HostAgent", "AppAgent"] {
            let r = t.route(profile, agent, "anything").unwrap();
            assert_eq!(r.root, "default");
            let names: Vec<_> = r
                .entry
                .action
                .iter()
                .chain(&r.entry.data_collection)
                .flat_map(|s| s.tools.clone().unwrap_or_default())
                .collect();
            assert!(
                names.contains(&"run_shell".to_string()),
                "{profile}/{agent}: {names:?}"
            );
            assert!(names.contains(&"get_system_info".to_string()));
        }
    }
    assert_eq!(
        t.timeouts.for_tool(Some(120.0), None),
        Duration::from_secs(130)
    );
    assert_eq!(
        t.timeouts.for_tool(None, Some(300.0)),
        Duration::from_secs(310)
    );
    assert_eq!(t.timeouts.for_tool(None, None), Duration::from_secs(120));
    assert_eq!(t.timeouts.batch(), Duration::from_secs(600));
}

#[test]
fn good_table_parses_every_kind_and_falls_back_to_default_root() {
    let t = RoutingTable::parse(GOOD, "tools.yaml").unwrap();
    let r = t.route("shell", "HostAgent", "gnome-calculator").unwrap();
    assert_eq!(r.root, "default");
    assert_eq!(r.entry.action.len(), 2);
    assert_eq!(r.entry.action[0].timeouts["run_shell"], 20.0);
    assert!(
        matches!(&r.entry.action[1].kind, ServerKind::Http { url, headers } if url.ends_with("/mcp") && headers.len() == 1)
    );
    let r = t.route("shell", "HostAgent", "mousepad").unwrap();
    assert_eq!(r.root, "mousepad");
    let spec = &r.entry.action[0];
    assert!(spec.reset);
    assert!(
        matches!(&spec.kind, ServerKind::Stdio { command, args, .. } if command == "/usr/bin/editor-mcp" && args == &["--fast"])
    );
    assert_eq!(
        t.timeouts.for_tool(Some(20.0), Some(99.0)),
        Duration::from_secs(25)
    );
    // The observe and act entries of one server share an instance key.
    let d = t.route("shell", "HostAgent", "x").unwrap();
    assert_eq!(
        d.entry.data_collection[0].instance_key(),
        d.entry.action[0].instance_key()
    );
}

#[test]
fn unknown_profile_and_agent_name_the_file_and_what_exists() {
    let t = RoutingTable::parse(GOOD, "tools.yaml").unwrap();
    let e = t
        .route("android", "HostAgent", "x")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "routing table tools.yaml: profile 'android' is not configured; expected one of: shell"
    );
    let e = t.route("shell", "AppAgent", "x").unwrap_err().to_string();
    assert_eq!(
        e,
        "routing table tools.yaml: agent 'AppAgent' is not configured; expected one of: HostAgent"
    );
}

#[test]
fn malformed_yaml_names_the_file_and_position() {
    let e = parse_err("profiles: [unclosed");
    assert!(e.starts_with("routing table tools.yaml: "), "{e}");
    assert!(e.contains("line"), "{e}");
}

#[test]
fn unknown_keys_are_named() {
    let e = parse_err("profiles: {}\nprofils: {}\n");
    assert!(e.contains("unknown field `profils`"), "{e}");
    let e = parse_err(
        "profiles:\n  p:\n    HostAgent:\n      default:\n        action:\n          - {namespace: s, type: stdio, comand: x}\n",
    );
    assert!(e.contains("unknown field `comand`"), "{e}");
    assert!(e.contains("profiles.p.HostAgent.default.action[0]"), "{e}");
}

#[test]
fn wrong_kind_and_missing_fields_say_what_was_expected() {
    let cases = [
        ("{namespace: s, type: ftp}", "unknown variant `ftp`"),
        (
            "{namespace: s, type: builtin}",
            "at profiles.p.HostAgent.default.action[0]: expected a non-empty 'name' for type builtin",
        ),
        (
            "{namespace: s, type: stdio, args: [a]}",
            "at profiles.p.HostAgent.default.action[0]: expected a non-empty 'command' for type stdio",
        ),
        (
            "{namespace: s, type: http, url: ftp://x}",
            "expected an http:// or https:// 'url' (found 'ftp://x')",
        ),
        (
            "{namespace: s, type: builtin, name: shell, url: http://x}",
            "expected only 'name', 'options' with type builtin (found 'url')",
        ),
        (
            "{namespace: '', type: builtin, name: shell}",
            "expected a non-empty 'namespace'",
        ),
        (
            "{namespace: s, type: builtin, name: shell, tools: []}",
            "expected a non-empty 'tools' list",
        ),
        (
            "{namespace: s, type: builtin, name: shell, tools: [a, a]}",
            "expected each tool once in 'tools' ('a' is listed twice)",
        ),
        (
            "{namespace: s, type: builtin, name: shell, timeouts: {a: -1}}",
            "expected a number of seconds ≥ 0 in timeouts.a (found -1)",
        ),
    ];
    for (server, want) in cases {
        let yaml = format!(
            "profiles:\n  p:\n    HostAgent:\n      default:\n        action:\n          - {server}\n"
        );
        let e = parse_err(&yaml);
        assert!(e.starts_with("routing table tools.yaml: "), "{e}");
        assert!(e.contains(want), "for {server}: {e}");
    }
}

#[test]
fn structure_errors_name_the_key() {
    assert_eq!(
        parse_err("profiles: {}"),
        "routing table tools.yaml: at profiles: expected at least one profile"
    );
    assert_eq!(
        parse_err("profiles: {p: {}}"),
        "routing table tools.yaml: at profiles.p: expected at least one agent (e.g. HostAgent)"
    );
    assert_eq!(
        parse_err("profiles: {p: {HostAgent: {calc: {}}}}"),
        "routing table tools.yaml: at profiles.p.HostAgent: expected a 'default' root (used for every root not listed)"
    );
    assert_eq!(
        parse_err("timeouts: {batch_secs: -5}\nprofiles: {p: {HostAgent: {default: {}}}}"),
        "routing table tools.yaml: at timeouts.batch_secs: expected a number of seconds ≥ 0"
    );
}

#[test]
fn a_tool_offered_twice_in_one_root_is_refused() {
    let e = parse_err(
        "profiles:\n  p:\n    HostAgent:\n      default:\n        data_collection:\n          - {namespace: a, type: builtin, name: x, tools: [t1, t2]}\n        action:\n          - {namespace: b, type: builtin, name: y, tools: [t2]}\n",
    );
    assert_eq!(
        e,
        "routing table tools.yaml: at profiles.p.HostAgent.default.action[0].tools: expected each tool offered once per root, but 't2' is already offered at data_collection[0].tools"
    );
}

#[test]
fn load_reports_a_missing_file_and_env_override_works() {
    let e = RoutingTable::load(std::path::Path::new("/nonexistent/tools.yaml")).unwrap_err();
    assert!(matches!(e, TableError::Read { .. }));
    assert!(
        e.to_string()
            .starts_with("cannot read routing table /nonexistent/tools.yaml: "),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.yaml");
    std::fs::write(&path, GOOD).unwrap();
    let t = RoutingTable::from_path_or_env(Some(&path)).unwrap();
    assert_eq!(t.source, path.display().to_string());
}

#[test]
fn builtin_table_gives_libreoffice_windows_their_api_tools_per_window() {
    let t = RoutingTable::builtin();
    let tools = |root: &str| -> Vec<(String, bool)> {
        let r = t.route("desktop", "AppAgent", root).unwrap();
        assert_eq!(r.root, root);
        r.entry
            .action
            .iter()
            .chain(&r.entry.data_collection)
            .filter(|s| s.namespace == "office")
            .flat_map(|s| {
                s.tools
                    .clone()
                    .unwrap_or_default()
                    .into_iter()
                    .map(move |n| (n, s.reset))
            })
            .collect()
    };
    let writer = tools("libreoffice-writer");
    for name in [
        "insert_table",
        "select_text",
        "set_font",
        "save_as",
        "get_document_text",
    ] {
        assert!(
            writer.contains(&(name.to_owned(), true)),
            "{name}: {writer:?}"
        );
    }
    let calc = tools("libreoffice-calc");
    assert!(
        calc.contains(&("insert_excel_table".to_owned(), true)),
        "{calc:?}"
    );
    assert!(!calc.iter().any(|(n, _)| n == "insert_table"), "{calc:?}");
    let impress = tools("libreoffice-impress");
    assert!(
        impress.contains(&("set_background_color".to_owned(), true)),
        "{impress:?}"
    );
    // Any other window, and the HostAgent, get none of them.
    assert!(tools("default").is_empty());
    let host = t
        .route("desktop", "HostAgent", "libreoffice-writer")
        .unwrap();
    assert!(host.entry.action.iter().all(|s| s.namespace != "office"));
}

#[test]
fn app_roots_offering_names_the_windows_that_bring_a_tool() {
    let t = RoutingTable::builtin();
    assert_eq!(
        t.app_roots_offering("desktop", "insert_table"),
        ["libreoffice-writer"]
    );
    assert_eq!(
        t.app_roots_offering("desktop", "save_as"),
        [
            "libreoffice-calc",
            "libreoffice-impress",
            "libreoffice-writer"
        ]
    );
    // A tool every window has comes from `default`, which names no application.
    assert!(t.app_roots_offering("desktop", "click_input").is_empty());
    assert!(t.app_roots_offering("desktop", "no_such_tool").is_empty());
    assert!(
        t.app_roots_offering("no_such_profile", "insert_table")
            .is_empty()
    );
}
