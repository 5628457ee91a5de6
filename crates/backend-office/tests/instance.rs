//! The device session's LibreOffice: `launch_app` opens documents of each kind in one supervised
//! instance (windows rooted by module), refuses paths outside the documents folders, reports a
//! damaged file and a missing LibreOffice clearly, and recovers after LibreOffice is killed.

mod common;

use std::time::{Duration, Instant};

use common::*;
use deft_test_support::office;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn documents_of_each_kind_open_in_one_instance_with_a_root_per_module() {
    let h = Harness::new().await;
    let docx = office::document_from_html(
        &h.docs,
        "report",
        "<h1>Report</h1><p>Grüße, 日本語</p>",
        "docx",
    );
    office::sheet_from_csv(&h.docs, "sales", "Name,Qty\nÄpfel,3\n", "xlsx");
    let writer = h.launch(&s(&docx)).await;
    assert_eq!(writer.app, "libreoffice-writer");
    assert_eq!(writer.name, "report.docx - LibreOffice Writer");
    let pid = h.office_pid().await;
    // A relative path is in the first documents folder.
    let calc = h.launch("sales.xlsx").await;
    assert_eq!(calc.app, "libreoffice-calc");
    // A new presentation, by the app's name.
    let impress = h.launch("libreoffice-impress").await;
    assert_eq!(impress.app, "libreoffice-impress");
    assert!(
        impress.name.ends_with(" - LibreOffice Impress"),
        "{impress:?}"
    );
    assert_eq!(h.office_pid().await, pid, "one LibreOffice for the session");
    let apps: Vec<String> = h.windows().await.into_iter().map(|w| w.app).collect();
    for app in [
        "libreoffice-writer",
        "libreoffice-calc",
        "libreoffice-impress",
    ] {
        assert!(apps.contains(&app.to_owned()), "{apps:?}");
    }
    // The instance is deft's: its own profile, its own UNO pipe, the gtk3 plug-in.
    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
    assert!(cmd.contains("-env:UserInstallation=file://"), "{cmd}");
    assert!(cmd.contains(&s(&h.tmp.path().join("profiles"))), "{cmd}");
    assert!(cmd.contains("--accept=pipe,name=deft-office-"), "{cmd}");
    let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    assert!(
        env.split(|b| *b == 0)
            .any(|kv| kv == b"SAL_USE_VCLPLUGIN=gtk3"),
        "the gtk3 plug-in gives LibreOffice an accessibility tree"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn paths_outside_the_folders_missing_or_of_other_kinds_are_refused_before_anything_starts() {
    let h = Harness::new().await;
    let outside = tempfile::tempdir().unwrap();
    let secret = office::document_from_html(outside.path(), "secret", "<p>x</p>", "docx");
    let e = err(&h.host("launch_app", json!({"app": s(&secret)})).await);
    assert_eq!(
        e,
        format!(
            "{} is outside the folders deft may use for documents ({}). Use a path inside them.",
            s(&secret),
            s(&h.docs)
        )
    );
    // A link inside the folder that points outside is outside too.
    std::os::unix::fs::symlink(&secret, h.doc("link.docx")).unwrap();
    let e = err(&h
        .host("launch_app", json!({"app": s(&h.doc("link.docx"))}))
        .await);
    assert!(e.contains("is outside the folders deft may use"), "{e}");
    let e = err(&h
        .host("launch_app", json!({"app": s(&h.doc("../escape.docx"))}))
        .await);
    assert!(e.contains("is outside the folders deft may use"), "{e}");
    let e = err(&h
        .host("launch_app", json!({"app": s(&h.doc("missing.docx"))}))
        .await);
    assert!(
        e.starts_with(&format!("{} does not exist.", s(&h.doc("missing.docx")))),
        "{e}"
    );
    let e = err(&h
        .host(
            "launch_app",
            json!({"app": "libreoffice", "args": ["--headless"]}),
        )
        .await);
    assert!(e.contains("\"--headless\" is not accepted"), "{e}");
    assert!(
        h.office.running().await.is_none(),
        "nothing was started for a refusal"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_document_is_an_error_not_a_dialog_and_the_next_one_opens() {
    let h = Harness::new().await;
    std::fs::write(h.doc("damaged.docx"), b"PK\x03\x04 this is no zip archive").unwrap();
    std::fs::write(
        h.doc("noise.xlsx"),
        [0u8, 159, 146, 150, 7, 1, 2, 3].repeat(300),
    )
    .unwrap();
    for name in ["damaged.docx", "noise.xlsx"] {
        let started = Instant::now();
        let e = err(&h.host("launch_app", json!({"app": s(&h.doc(name))})).await);
        assert!(
            e.starts_with(&format!("LibreOffice could not open {}", s(&h.doc(name)))),
            "{e}"
        );
        assert!(
            e.contains("the file is damaged or is not what its extension says"),
            "{e}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "it never waits on a dialog"
        );
    }
    // No dialog was left on the desktop, and LibreOffice still serves.
    assert!(h.windows().await.is_empty(), "{:?}", h.windows().await);
    let good = office::document_from_html(&h.docs, "good", "<p>fine</p>", "odt");
    assert_eq!(h.launch(&s(&good)).await.app, "libreoffice-writer");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_libreoffice_says_what_to_install_at_once() {
    let h =
        Harness::with_program(Some("/nonexistent/libreoffice/program/soffice.bin".into())).await;
    let doc = office::document_from_html(&h.docs, "a", "<p>a</p>", "docx");
    let started = Instant::now();
    let e = err(&h.host("launch_app", json!({"app": s(&doc)})).await);
    assert_eq!(
        e,
        "LibreOffice is not installed (/nonexistent/libreoffice/program/soffice.bin does not exist). Install it with `apt-get install libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-gtk3 python3-uno`; until then documents cannot be opened or edited."
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test(flavor = "multi_thread")]
async fn libreoffice_killed_is_restarted_and_documents_open_again() {
    let h = Harness::new().await;
    let doc = office::document_from_html(&h.docs, "crash", "<p>before</p>", "docx");
    h.launch(&s(&doc)).await;
    let first = h.office_pid().await;
    deft_test_support::proc::signal_process(first as i32, deft_test_support::proc::Signal::KILL);
    assert!(wait_until(Duration::from_secs(10), || !alive(first)));
    // The supervisor starts it again; opening works on the new instance.
    let w = h.launch(&s(&doc)).await;
    assert_eq!(w.app, "libreoffice-writer");
    let second = h.office_pid().await;
    assert_ne!(second, first);
    assert!(alive(second));
}
