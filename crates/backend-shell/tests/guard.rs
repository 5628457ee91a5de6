//! What run_shell may not read, on real programs over real MCP: deft's own processes under
//! /proc in every argument form, the protected data folder, folders that hold them given to
//! grep -r and diff, ps's e modifier; what stays allowed beside them; and secrets hidden from
//! output. (The process holding deft's secrets here is the test itself.)

mod common;

use std::path::{Path, PathBuf};

use deft_backend_shell::{Guard, ShellPolicy, ShellServer};
use serde_json::{Value, json};

struct Setup {
    client: common::Client,
    /// The protected "data folder".
    data: PathBuf,
    /// A folder beside it, with links into it and into /proc.
    outside: PathBuf,
    _dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().canonicalize().expect("real path");
    let data = root.join("data");
    let desktop = data.join("desktop");
    std::fs::create_dir_all(&desktop).expect("data folder");
    std::fs::write(data.join("api-token"), "the-api-token").expect("token file");
    std::fs::write(desktop.join("note.txt"), "written by an app").expect("note");
    let outside = root.join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    std::os::unix::fs::symlink(&data, outside.join("to-data")).expect("link");
    std::os::unix::fs::symlink(
        format!("/proc/{}", std::process::id()),
        outside.join("to-me"),
    )
    .expect("link");
    let policy =
        ShellPolicy::from_options(&json!({"allow": ["strings", "od", "xxd"]})).expect("policy");
    let guard = Guard::default().protect(&data, &[desktop]);
    let client = common::serve(ShellServer::new(policy).with_guard(guard)).await;
    Setup {
        client,
        data,
        outside,
        _dir: dir,
    }
}

/// Runs `command` (in `cwd`), returning the tool error text, or `None` when it ran.
async fn refusal(s: &Setup, command: &str, cwd: Option<&Path>) -> Option<String> {
    let mut args = json!({ "command": command });
    if let Some(cwd) = cwd {
        args["cwd"] = json!(cwd);
    }
    let result = common::call(&s.client, "run_shell", args).await;
    (result.is_error == Some(true)).then(|| common::text(&result).to_owned())
}

async fn ran(s: &Setup, command: &str) -> Value {
    let result = common::call(&s.client, "run_shell", json!({ "command": command })).await;
    common::structured(&result).clone()
}

#[tokio::test]
async fn deft_processes_cannot_be_read_in_any_argument_form() {
    let s = setup().await;
    let me = std::process::id();
    let tid = std::fs::read_dir(format!("/proc/{me}/task"))
        .expect("threads")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .find(|t| *t != me)
        .expect("a second thread (the runtime's)");
    let parent = std::os::unix::process::parent_id();
    let outside = s.outside.display().to_string();
    let by_path = [
        format!("cat /proc/{me}/environ"),
        "cat /proc/self/environ".to_owned(),
        "cat /proc/thread-self/environ".to_owned(),
        format!("cat /proc/{tid}/environ"),
        format!("cat /proc/{me}/task/{tid}/environ"),
        format!("cat /proc/{me}/cmdline"),
        format!("cat /proc/{me}/../{me}/environ"),
        "cat /proc/self/../self/mem".to_owned(),
        format!("head -c 100 /proc/{me}/maps"),
        "tail /dev/fd/../environ".to_owned(),
        "ls -l /dev/fd/".to_owned(),
        format!("ls /proc/{me}/fd"),
        format!("strings /proc/{parent}/environ"),
        format!("od -c /proc/{me}/environ"),
        format!("xxd /proc/{me}/environ"),
        format!("grep -a PATH /proc/{me}/environ"),
        format!("grep -f/proc/{me}/environ x"),
        format!("grep --file=/proc/{me}/environ x"),
        format!("date -f /proc/{me}/environ"),
        format!("file -m /etc/magic:/proc/{me}/environ /bin/ls"),
        format!("cat {outside}/to-me/environ"),
        "cat /proc/kcore".to_owned(),
    ];
    for command in &by_path {
        let text = refusal(&s, command, None)
            .await
            .unwrap_or_else(|| panic!("{command:?} ran"));
        assert!(
            text.starts_with("Refused: ") && text.contains("deft's own processes")
                || text.contains("the machine's memory"),
            "{command}: {text}"
        );
    }
    let text = refusal(&s, &format!("cat /proc/{me}/environ"), None).await;
    assert_eq!(
        text.as_deref(),
        Some(
            format!(
                "Refused: '/proc/{me}/environ' leads to /proc/{me}/environ, a file of one of \
                 deft's own processes (pid {me}). run_shell may not read deft's processes' \
                 environment, command line, memory, open files or threads under /proc: they \
                 hold deft's secrets (its model key and tokens). Their stat, status and limits \
                 files may be read; to list processes use ps (without its e modifier) or \
                 get_system_info."
            )
            .as_str()
        )
    );
    // Relative to a working directory inside a deft process's folder.
    for (command, cwd) in [
        ("cat environ", format!("/proc/{me}")),
        ("cat ./environ", "/proc/self".to_owned()),
        ("cat ../self/environ", "/proc/self/task".to_owned()),
    ] {
        let text = refusal(&s, command, Some(Path::new(&cwd)))
            .await
            .unwrap_or_else(|| panic!("{command:?} in {cwd} ran"));
        assert!(text.contains("deft's own processes"), "{command}: {text}");
    }
    let text = refusal(&s, "ls", Some(Path::new(&format!("/proc/{me}/fd"))))
        .await
        .expect("a working directory inside fd/ is refused");
    assert!(text.contains("deft's own processes"), "{text}");

    // Beside them: status, the machine's own /proc files, unrelated processes.
    assert_eq!(
        ran(&s, &format!("grep -c Pid /proc/{me}/status")).await["exit_code"],
        0
    );
    assert_eq!(ran(&s, "grep MemTotal /proc/meminfo").await["exit_code"], 0);
    assert_eq!(ran(&s, "cat /proc/self/net/dev").await["exit_code"], 0);
    assert_eq!(ran(&s, "ls /proc").await["exit_code"], 0);
}

#[tokio::test]
async fn the_data_folder_cannot_be_read_but_its_desktop_folder_can() {
    let s = setup().await;
    let data = s.data.display().to_string();
    let outside = s.outside.display().to_string();
    for (command, cwd) in [
        (format!("cat {data}/api-token"), None),
        (format!("cat {data}/desktop/../api-token"), None),
        (format!("cat {outside}/to-data/api-token"), None),
        (format!("cat {outside}/../data/api-token"), None),
        ("cat api-token".to_owned(), Some(s.data.clone())),
        ("cat ../api-token".to_owned(), Some(s.data.join("desktop"))),
        (format!("ls {data}"), None),
        (format!("sha256sum --check={data}/api-token"), None),
    ] {
        let text = refusal(&s, &command, cwd.as_deref())
            .await
            .unwrap_or_else(|| panic!("{command:?} ran"));
        assert!(
            text.starts_with("Refused: ") && text.contains("deft's own data folder"),
            "{command}: {text}"
        );
    }
    let note = ran(&s, &format!("cat {data}/desktop/note.txt")).await;
    assert_eq!(note["stdout"], "written by an app");
}

#[tokio::test]
async fn folder_readers_may_not_be_given_a_folder_that_holds_them() {
    let s = setup().await;
    let root = s.data.parent().expect("parent").display().to_string();
    let me = std::process::id();
    for (command, cwd) in [
        (format!("grep -r the-api-token {root}"), None),
        ("grep -ra PATH /proc".to_owned(), None),
        (format!("grep -rl PATH /proc/{me}"), None),
        ("grep -R x /".to_owned(), None),
        (
            "grep -r the-api-token".to_owned(),
            Some(PathBuf::from(&root)),
        ),
        (
            "grep --recursive the-api-token .".to_owned(),
            Some(PathBuf::from(&root)),
        ),
        (format!("diff -r {root} /tmp"), None),
        (format!("diff /proc/{me} /proc/1"), None),
    ] {
        let text = refusal(&s, &command, cwd.as_deref())
            .await
            .unwrap_or_else(|| panic!("{command:?} ran"));
        assert!(
            text.starts_with("Refused: ")
                && (text.contains("and everything in it") || text.contains("deft's own")),
            "{command}: {text}"
        );
    }
    // A recursive grep of a folder beside the data folder runs, also from a cwd that holds it.
    let outside = s.outside.display().to_string();
    let out = ran(&s, &format!("grep -r nothing-here {outside}")).await;
    assert_eq!(out["exit_code"], 1, "{out}");
}

#[tokio::test]
async fn ps_shows_no_environment() {
    let s = setup().await;
    for command in [
        "ps e",
        "ps auxe",
        "ps aux e",
        "ps -o pid,args e",
        "ps -u user",
    ] {
        let text = refusal(&s, command, None)
            .await
            .unwrap_or_else(|| panic!("{command:?} ran"));
        assert!(
            text.contains("not allowed for ps") && text.contains("environment"),
            "{command}: {text}"
        );
    }
    // The SysV -e (all processes) runs, as -A, and so does BSD aux; neither shows environments.
    let me = std::process::id().to_string();
    for command in ["ps -ef", "ps -eo pid,comm", "ps aux", "ps -ex"] {
        let out = ran(&s, command).await;
        let stdout = out["stdout"].as_str().unwrap_or("");
        assert!(
            !stdout.contains("PATH="),
            "{command} showed an environment: {stdout}"
        );
        if command == "ps -eo pid,comm" {
            let listed = stdout
                .lines()
                .any(|l| l.split_whitespace().next() == Some(&me));
            assert!(listed, "{command} lists this process: {stdout}");
        }
    }
}

#[tokio::test]
async fn secrets_this_process_knows_are_hidden_from_output() {
    let s = setup().await;
    deft_tools::secrets::remember("sk-remembered-in-the-test-0123");
    let file = s.outside.join("leaked.txt");
    std::fs::write(&file, "key=sk-remembered-in-the-test-0123 end\n").expect("file");
    let out = ran(&s, &format!("cat {}", file.display())).await;
    assert_eq!(out["stdout"], "key=[hidden] end\n");
    assert!(
        out["stderr"]
            .as_str()
            .unwrap_or("")
            .contains("deft's secrets in this output were replaced by [hidden]"),
        "{out}"
    );
    // Cut at the end of a line, as ps cuts long command lines.
    let out = ran(&s, &format!("cut -c 1-16 {}", file.display())).await;
    assert_eq!(out["stdout"], "key=[hidden]\n");
}
