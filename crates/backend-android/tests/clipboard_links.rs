//! The phone's clipboard and links, through an MCP client, the real adb server and the
//! simulated phone: `set_clipboard` / `get_clipboard` run Mobile Next's devicekit helper as the
//! shell user (copied to the phone from an APK folder when it lacks it), Ctrl+V pastes what was
//! set and Ctrl+C copies what a field holds, the limits and a phone without the helper get
//! their own answers; `launch_app` of a link opens it in the app that handles it.

mod common;

use common::{Client, call, client_for, error, find, ok, serve};
use deft_backend_android::clipboard::{DEFAULT_HELPER_PATH, MAX_PHONE_CLIPBOARD_BYTES};
use deft_backend_android::phone::Phone;
use deft_backend_android::{AndroidConfig, AndroidServer, texts};
use deft_test_support::adb_double::{AdbHarness, DoubleConfig};
use serde_json::json;

/// A server on the harness's phone whose APK folder holds a `devicekit.dex`.
async fn with_helper_folder(harness: &AdbHarness, folder: &tempfile::TempDir) -> Client {
    std::fs::write(folder.path().join("devicekit.dex"), b"dex\n035\0devicekit")
        .expect("the helper file is written");
    let config = AndroidConfig {
        apk_dirs: vec![folder.path().to_owned()],
        ..Default::default()
    };
    let phone = Phone::new(harness.client(), harness.double(0).serial());
    serve(AndroidServer::on_phone(phone, config)).await
}

#[tokio::test]
async fn the_helper_is_copied_once_and_unicode_goes_both_ways_with_ctrl_v_and_ctrl_c() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let folder = tempfile::tempdir().unwrap();
    let client = with_helper_folder(&harness, &folder).await;
    let text = "订单 ORD-42 \"quoted\" $HOME; rm -rf /\nline two ✓";
    let set = call(&client, "set_clipboard", json!({"text": text})).await;
    let set = ok(&set);
    assert_eq!(set["chars"], text.chars().count());
    let local = folder.path().join("devicekit.dex").display().to_string();
    assert_eq!(
        set["note"],
        texts::clipboard_helper_copied(&local, DEFAULT_HELPER_PATH)
    );
    assert_eq!(harness.double(0).clipboard().as_deref(), Some(text));
    // the helper is on the phone now: the next call copies nothing
    let read = call(&client, "get_clipboard", json!({})).await;
    let read = ok(&read);
    assert_eq!(
        read["text"], text,
        "the line end the helper prints is not the text's"
    );
    assert!(read.get("note").is_none(), "{read}");
    // Ctrl+V pastes it into the focused field, as on a phone with a hardware keyboard
    ok(&call(&client, "launch_app", json!({"app": "com.example.notes"})).await);
    let field = find(&client, json!({"type": "edit"})).await;
    ok(&call(&client, "click_input", json!({"id": field})).await);
    ok(&call(&client, "keyboard_input", json!({"keys": "^v"})).await);
    assert_eq!(
        harness
            .double(0)
            .field_text("com.example.notes:id/note")
            .as_deref(),
        Some(text)
    );
    // what an app copies (Ctrl+C in a field) is what get_clipboard reads
    ok(&call(
        &client,
        "set_edit_text",
        json!({"id": field, "text": "苏州"}),
    )
    .await);
    ok(&call(&client, "keyboard_input", json!({"keys": "^c"})).await);
    let read = call(&client, "get_clipboard", json!({})).await;
    assert_eq!(ok(&read)["text"], "苏州");
}

#[tokio::test]
async fn without_the_helper_limits_and_an_empty_clipboard_say_what_to_do() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let plain = client_for(&harness, 0).await;
    let out = call(&plain, "set_clipboard", json!({"text": "x"})).await;
    assert_eq!(
        error(&out),
        texts::no_clipboard_helper(DEFAULT_HELPER_PATH, &[])
    );
    let out = call(&plain, "get_clipboard", json!({})).await;
    assert_eq!(
        error(&out),
        texts::no_clipboard_helper(DEFAULT_HELPER_PATH, &[])
    );
    assert_eq!(harness.double(0).clipboard(), None);
    // an APK folder without the helper is named in the advice
    let empty = tempfile::tempdir().unwrap();
    let config = AndroidConfig {
        apk_dirs: vec![empty.path().to_owned()],
        ..Default::default()
    };
    let phone = Phone::new(harness.client(), harness.double(0).serial());
    let client = serve(AndroidServer::on_phone(phone, config)).await;
    let out = call(&client, "get_clipboard", json!({})).await;
    assert_eq!(
        error(&out),
        texts::no_clipboard_helper(DEFAULT_HELPER_PATH, &[empty.path().display().to_string()])
    );
    // with the helper: an empty clipboard says so; text over the phone's limit is refused
    // before anything is sent, and the shared limit still holds
    let folder = tempfile::tempdir().unwrap();
    let client = with_helper_folder(&harness, &folder).await;
    let out = call(&client, "get_clipboard", json!({})).await;
    assert_eq!(error(&out), deft_protocol::clipboard::EMPTY);
    let long = "东".repeat(MAX_PHONE_CLIPBOARD_BYTES / 3 + 1);
    let out = call(&client, "set_clipboard", json!({"text": long})).await;
    assert_eq!(
        error(&out),
        texts::phone_clipboard_too_long(long.len(), MAX_PHONE_CLIPBOARD_BYTES)
    );
    assert_eq!(harness.double(0).clipboard(), None);
    let fits = "a".repeat(MAX_PHONE_CLIPBOARD_BYTES);
    ok(&call(&client, "set_clipboard", json!({"text": fits})).await);
    assert_eq!(
        harness.double(0).clipboard().map(|t| t.len()),
        Some(MAX_PHONE_CLIPBOARD_BYTES)
    );
}

#[tokio::test]
async fn a_helper_elsewhere_is_used_there_and_a_broken_one_is_named_with_what_it_said() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("devicekit.dex"), b"dex\n035\0").unwrap();
    let config = AndroidConfig {
        apk_dirs: vec![folder.path().to_owned()],
        clipboard_helper: Some("/data/local/tmp/tools/kit.dex".into()),
        ..Default::default()
    };
    let phone = Phone::new(harness.client(), harness.double(0).serial());
    let client = serve(AndroidServer::on_phone(phone, config)).await;
    // copied to the configured path, and run from there
    let set = call(&client, "set_clipboard", json!({"text": "ok"})).await;
    assert!(
        ok(&set)["note"]
            .as_str()
            .unwrap()
            .contains("(/data/local/tmp/tools/kit.dex)"),
        "{set:?}"
    );
    assert_eq!(harness.double(0).clipboard().as_deref(), Some("ok"));
    // a file that is no dex where the helper should be: what app_process said, and the
    // advice; nothing reached the clipboard
    let broken = tempfile::tempdir().unwrap();
    std::fs::write(
        broken.path().join("devicekit.dex"),
        b"<html>not found</html>",
    )
    .unwrap();
    let config = AndroidConfig {
        apk_dirs: vec![broken.path().to_owned()],
        clipboard_helper: Some("/data/local/tmp/broken.dex".into()),
        ..Default::default()
    };
    let phone = Phone::new(harness.client(), harness.double(0).serial());
    let client = serve(AndroidServer::on_phone(phone, config)).await;
    let out = call(&client, "set_clipboard", json!({"text": "lost"})).await;
    assert_eq!(
        error(&out),
        texts::clipboard_helper_failed(
            "/data/local/tmp/broken.dex",
            "Exception in thread \"main\" java.lang.ClassNotFoundException: Didn't find class \"com.mobilenext.devicekit.Clipboard\" on path: DexPathList[[zip file \"/data/local/tmp/broken.dex\"]]"
        )
    );
    assert_eq!(harness.double(0).clipboard().as_deref(), Some("ok"));
}

#[tokio::test]
async fn a_link_opens_in_the_app_that_handles_it_and_an_unhandled_one_is_refused() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let client = client_for(&harness, 0).await;
    let opened = call(
        &client,
        "launch_app",
        json!({"app": "https://example.org/orders?id=42"}),
    )
    .await;
    let opened = ok(&opened);
    assert_eq!(opened["app"], "com.android.chrome");
    assert_eq!(opened["found_by"], "link");
    assert_eq!(opened["window"]["app"], "com.android.chrome");
    assert_eq!(harness.double(0).foreground(), "com.android.chrome");
    let page = find(
        &client,
        json!({"text": "Page at https://example.org/orders?id=42"}),
    )
    .await;
    assert!(!page.is_empty());
    let out = call(&client, "launch_app", json!({"app": "nosuchapp://x"})).await;
    let said = error(&out);
    assert!(
        said.contains("unable to resolve Intent") && said.contains("nosuchapp://x"),
        "{said}"
    );
    assert_eq!(
        harness.double(0).foreground(),
        "com.android.chrome",
        "nothing else opened"
    );
}
