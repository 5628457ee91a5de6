//! Every refusal names what was refused and what is allowed. Checked on the policy directly and,
//! for each kind, over real MCP as a tool error.

mod common;

use deft_backend_shell::ShellPolicy;
use serde_json::json;

/// Checks that the text is a refusal mentioning `mentions` and the whole allow-list.
fn assert_refusal_lists_programs(text: &str, mentions: &str) {
    assert!(text.starts_with("Refused: "), "{text}");
    assert!(text.contains(mentions), "expected {mentions:?} in: {text}");
    let list = "Allowed programs: basename, cal, cat, cut, date, df, diff, dirname, du, echo, file, \
                find, free, grep, head, hostname, id, ls, md5sum, ps, pwd, python, python3, \
                realpath, sha256sum, sort, stat, tail, test, tr, uname, uniq, uptime, wc, \
                whereis, which, whoami.";
    assert!(text.ends_with(list), "allow-list missing from: {text}");
}

fn refused(command: &str) -> String {
    match ShellPolicy::default().check(command) {
        Ok(argv) => panic!("{command:?} was allowed as {argv:?}"),
        Err(refusal) => refusal.to_string(),
    }
}

#[test]
fn each_shell_operator_is_refused_by_name() {
    let cases = [
        ("ls; rm -rf /", "';'"),
        ("ls | wc -l", "'|'"),
        ("ls && id", "'&'"),
        ("sleep 5 &", "'&'"),
        ("echo $(id)", "'$('"),
        ("echo ${HOME}", "'${'"),
        ("echo `id`", "'`'"),
        ("echo hi > /tmp/x", "'>'"),
        ("cat < /etc/passwd", "'<'"),
    ];
    for (command, shown) in cases {
        let text = refused(command);
        assert_refusal_lists_programs(&text, &format!("the command contains {shown}"));
        assert!(
            text.contains("pipes, redirection, command chaining and substitution are not allowed"),
            "{text}"
        );
    }
}

#[test]
fn control_characters_are_refused_by_name() {
    for (command, shown) in [
        ("ls\nid", "a newline"),
        ("ls\rid", "a carriage return"),
        ("ls\0id", "a NUL byte"),
    ] {
        let text = refused(command);
        assert_refusal_lists_programs(&text, &format!("the command contains {shown}"));
        assert!(text.contains("one command per call"), "{text}");
    }
}

#[test]
fn bash_network_devices_are_refused() {
    for (command, shown) in [
        ("cat /dev/tcp/10.0.0.1/80", "'/dev/tcp/'"),
        ("cat /dev/udp/10.0.0.1/53", "'/dev/udp/'"),
    ] {
        let text = refused(command);
        assert_refusal_lists_programs(&text, &format!("the command contains {shown}"));
        assert!(text.contains("network access"), "{text}");
    }
}

#[test]
fn programs_off_the_list_and_paths_are_refused() {
    let text = refused("rm -rf /tmp/x");
    assert_refusal_lists_programs(&text, "'rm' is not on this machine's allow-list");

    let text = refused("/bin/ls -la");
    assert_refusal_lists_programs(&text, "the program is given as a path ('/bin/ls')");
    assert!(text.contains("give only its name ('ls')"), "{text}");

    let text = refused("   ");
    assert_refusal_lists_programs(&text, "the command is empty");

    let text = refused("echo 'unclosed");
    assert_refusal_lists_programs(&text, "unclosed quote");
}

#[test]
fn argument_rules_say_what_is_allowed() {
    let text = refused("find /tmp -name x -exec rm {} +");
    assert!(
        text.starts_with("Refused: the argument '-exec' is not allowed for find."),
        "{text}"
    );
    assert!(
        text.contains("-execdir, -delete, -ok, -okdir, -fprint, -fprint0, -fprintf, -fls"),
        "{text}"
    );

    let text = refused("find / -delete");
    assert!(text.contains("'-delete' is not allowed for find"), "{text}");

    let text = refused("python3 -c 'import os'");
    assert!(text.contains("'-c' is not allowed for python3"), "{text}");
    assert!(
        text.contains("\"python3 --version\" or \"python3 -V\""),
        "{text}"
    );

    let text = refused("sort -o /etc/passwd data");
    assert!(text.contains("'-o' is not allowed for sort"), "{text}");
    assert!(text.contains("-o, --output, --compress-program"), "{text}");

    let text = refused("date -s 2000-01-01");
    assert!(text.contains("'-s' is not allowed for date"), "{text}");
    let text = refused("date 010112002030");
    assert_eq!(
        text,
        "Refused: the argument '010112002030' is not allowed for date. date may run with any \
         options except -s, --set, and only with +FORMAT operands (they set the system clock, and \
         so does an operand without a leading '+')."
    );

    let text = refused("uniq input output");
    assert_eq!(
        text,
        "Refused: the argument 'output' is not allowed for uniq. uniq may run with any options, \
         and only with at most one file operand (a second operand is an output file that uniq \
         would write)."
    );

    let text = refused("hostname attacker");
    assert!(
        text.contains("'attacker' is not allowed for hostname"),
        "{text}"
    );
    assert!(text.contains("--all-ip-addresses"), "{text}");

    assert!(ShellPolicy::default().check("python3 --version").is_ok());
    assert!(
        ShellPolicy::default()
            .check("find /tmp -name '*.log' -type f")
            .is_ok()
    );
}

#[tokio::test]
async fn refusals_come_back_as_tool_errors_over_mcp() {
    let client = common::connect(ShellPolicy::default()).await;
    for (command, mentions) in [
        ("ls | wc -l", "the command contains '|'"),
        ("rm -rf /", "'rm' is not on this machine's allow-list"),
        ("/bin/ls", "the program is given as a path ('/bin/ls')"),
        ("echo hi > x", "the command contains '>'"),
    ] {
        let result = common::call(&client, "run_shell", json!({ "command": command })).await;
        assert_eq!(result.is_error, Some(true), "{command}: {result:?}");
        assert!(result.structured_content.is_none(), "{command}");
        assert_refusal_lists_programs(common::text(&result), mentions);
    }
    let result = common::call(
        &client,
        "run_shell",
        json!({ "command": "find . -exec id ;" }),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    // ';' is found before the argument rule is reached.
    assert!(common::text(&result).contains("';'"));
    let result = common::call(&client, "run_shell", json!({ "command": "find . -delete" })).await;
    assert_eq!(result.is_error, Some(true));
    assert!(common::text(&result).contains("'-delete' is not allowed for find"));
    client.cancel().await.expect("client closes");
}
