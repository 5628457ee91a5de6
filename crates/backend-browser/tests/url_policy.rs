//! The URL policy on a real Chromium (issue 32): a blocked host stays blocked however its name
//! or address is written — in `navigate`, a script's redirect and a frame alike — an allow list
//! lets nothing else through, the tab list names hosts in their canonical form, and every
//! request a page makes (images, scripts, style sheets, fetch, beacons, WebSockets, frames,
//! dedicated, shared and service workers) passes the policy: the blocked host's own server
//! counts what reaches it.
//!
//! Names under `.test` resolve to 127.0.0.1 in this Chromium (`--host-resolver-rules`), so a
//! second page server on loopback plays the blocked host.

mod common;

use common::Harness;
use deft_backend_browser::texts;
use deft_test_support::web::PageServer;
use serde_json::{Value, json};

/// Chromium's flag that sends every `.test` name (with trailing dots too) to 127.0.0.1.
const RESOLVE: &str = "--host-resolver-rules=MAP *.test* 127.0.0.1";

/// A browser with `policy` whose `.test` names resolve to loopback, and the server playing the
/// blocked host.
async fn start(policy: Value) -> (Harness, PageServer) {
    let mut options = policy;
    options["chromium_args"] = json!([RESOLVE]);
    let h = Harness::with_options(options).await;
    let blocked = PageServer::start()
        .await
        .expect("second page server starts");
    (h, blocked)
}

/// `s` as a query value.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The jump page on `origin` (an allowed one), whose buttons open `to` by script.
fn jump(origin: &str, to: &str) -> String {
    format!("{origin}/policy_jump.html?to={}", encode(to))
}

/// Opens `to` from the scripts of `jump_page` — in a new frame, then in the page itself — and
/// returns the refusals the two clicks' results reported.
async fn scripts_open(h: &Harness, jump_page: &str) -> Vec<Value> {
    h.open_url(jump_page).await;
    let l = h.listing(json!({})).await;
    let mut blocked = Vec::new();
    for (button, done) in [("Frame it", "frame loaded"), ("Go there", "")] {
        let id = Harness::id_of(&l, "button", button);
        let r = h.ok("click_input", json!({"id": id, "name": button})).await;
        if let Some(b) = r["blocked"].as_array() {
            blocked.extend(b.iter().cloned());
            assert_eq!(
                r["blocked_note"],
                texts::NAVIGATION_BLOCKED,
                "{button}: {r}"
            );
        }
        if !done.is_empty() {
            // The frame's error page is in: its refusal is recorded, whichever result says so.
            h.page_text_with(done).await;
        }
    }
    blocked
}

/// Each refusal's reason, which must be `reason`, and how many there were.
fn refusals(blocked: &[Value], reason: &str, what: &str) -> usize {
    for b in blocked {
        assert_eq!(b["reason"], reason, "{what}: {blocked:?}");
    }
    blocked.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_spelling_of_a_blocked_name_is_refused_in_navigation_redirect_and_frame() {
    let (h, evil) = start(json!({"blocked_domains": ["evil.test"]})).await;
    let shop = format!("http://shop.test:{}", h.pages.port());
    for (host, canonical) in [
        ("evil.test", "evil.test"),
        ("evil.test.", "evil.test"),
        ("EVIL.test.", "evil.test"),
        ("sub.evil.test.", "sub.evil.test"),
        ("evil.test..", "evil.test"),
        ("ｅｖｉｌ.test", "evil.test"),
        ("ev%69l.test", "evil.test"),
    ] {
        let url = format!("http://{host}:{}/form.html", evil.port());
        let reason = texts::domain_blocked(canonical);
        assert_eq!(h.fails("navigate", json!({"url": url})).await, reason);
        let blocked = scripts_open(&h, &jump(&shop, &url)).await;
        assert_eq!(refusals(&blocked, &reason, &url), 2, "{url}: {blocked:?}");
    }
    assert_eq!(evil.requests(), Vec::<String>::new(), "nothing reached it");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_redirect_to_a_blocked_host_is_refused() {
    let (h, evil) = start(json!({"blocked_domains": ["evil.test"]})).await;
    for target in ["evil.test", "EVIL.test.", "sub.evil.test"] {
        redirect_is_refused(&h, &evil, target).await;
    }
    assert!(h.shutdown().await);
    let (h, evil) = start(json!({"blocked_domains": ["127.0.0.1"]})).await;
    for target in ["127.0.0.1", "[::ffff:127.0.0.1]", "2130706433"] {
        redirect_is_refused(&h, &evil, target).await;
    }
    assert!(h.shutdown().await);
}

/// A page of an allowed host answers 302 to `target` (a blocked host, served by `blocked`):
/// the navigation is refused and nothing reaches `blocked`.
async fn redirect_is_refused(h: &Harness, blocked: &PageServer, target: &str) {
    let to = format!("http://{target}:{}/form.html", blocked.port());
    let url = format!(
        "http://localhost:{}/api/redirect?to={}",
        h.pages.port(),
        encode(&to)
    );
    let answer = h.fails("navigate", json!({"url": url})).await;
    assert!(
        answer.starts_with(&format!(
            "Navigating to {url} was refused: it redirected to http://"
        )),
        "{target}: {answer}"
    );
    assert!(answer.ends_with("(blocked_domains)."), "{target}: {answer}");
    assert_eq!(
        blocked.requests(),
        Vec::<String>::new(),
        "{target}: nothing reached it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_spelling_of_a_blocked_address_is_refused_in_navigation_redirect_and_frame() {
    let (h, evil) = start(json!({"blocked_domains": ["127.0.0.1"]})).await;
    let allowed = format!("http://localhost:{}", h.pages.port());
    let reason = texts::domain_blocked("127.0.0.1");
    for host in [
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "[0:0:0:0:0:ffff:127.0.0.1]",
        "2130706433",
        "0177.0.0.1",
        "0x7f.1",
        "127.1",
        "127.0.0.1.",
    ] {
        let url = format!("http://{host}:{}/form.html", evil.port());
        assert_eq!(h.fails("navigate", json!({"url": url})).await, reason);
        let blocked = scripts_open(&h, &jump(&allowed, &url)).await;
        assert_eq!(refusals(&blocked, &reason, &url), 2, "{url}: {blocked:?}");
    }
    assert_eq!(evil.requests(), Vec::<String>::new(), "nothing reached it");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allow_list_lets_only_its_hosts_through_and_tabs_show_canonical_hosts() {
    let (h, evil) = start(json!({"allowed_domains": ["shop.test", "127.0.0.1"]})).await;
    let port = h.pages.port();
    let allowed = ["shop.test".to_owned(), "127.0.0.1".to_owned()];
    // A backslash ends the authority: Chromium opens evil.test, whatever follows the @.
    for (url, host) in [
        (
            format!(r"http://evil.test:{}\@shop.test:{port}/", evil.port()),
            "evil.test",
        ),
        (
            format!("http://shop.test.evil.test:{}/", evil.port()),
            "shop.test.evil.test",
        ),
    ] {
        let reason = texts::domain_not_allowed(host, &allowed);
        assert_eq!(h.fails("navigate", json!({"url": url})).await, reason);
        let blocked = scripts_open(&h, &jump(&format!("http://shop.test:{port}"), &url)).await;
        assert_eq!(refusals(&blocked, &reason, &url), 2, "{url}: {blocked:?}");
    }
    assert_eq!(evil.requests(), Vec::<String>::new(), "nothing reached it");
    // The allowed hosts, however written, open; the tab list names them canonically.
    for (url, root) in [
        (format!("http://SHOP.test.:{port}/form.html"), "shop.test"),
        (
            format!("http://[::ffff:127.0.0.1]:{port}/form.html"),
            "127.0.0.1",
        ),
        (format!("http://0x7f.1:{port}/form.html"), "127.0.0.1"),
    ] {
        h.ok("navigate", json!({"url": url})).await;
        let tabs = h.ok("get_desktop_app_info", json!({})).await;
        assert_eq!(tabs["windows"][0]["app"], root, "{url}: {tabs}");
    }
    assert!(h.shutdown().await);
}

/// Every kind of request the request page makes, by the path it asks for under `/k/`.
const KINDS: [&str; 19] = [
    "beacon",
    "img",
    "script",
    "css",
    "fetch",
    "ws",
    "worker-import",
    "worker-fetch",
    "worker-ws",
    "shared-import",
    "shared-fetch",
    "shared-ws",
    "sw-import",
    "sw-fetch",
    "sw-ws",
    "frame-fetch",
    "frame-ws",
    "xframe-fetch",
    "xframe-ws",
];

/// Opens the request page (on localhost, where service workers are allowed; its cross-origin
/// frame on 127.0.0.1) aimed at the blocked host's server; returns the page's report once every
/// request has ended.
async fn make_every_request(h: &Harness, evil: &PageServer) -> String {
    let port = h.pages.port();
    let page = format!(
        "http://localhost:{port}/policy_requests.html?to={}&cross={}",
        encode(&format!("http://evil.test:{}", evil.port())),
        encode(&format!("http://127.0.0.1:{port}")),
    );
    h.open_url(&page).await;
    h.page_text_with("all settled").await
}

/// Without a policy every kind of request reaches the other host: the page really makes them
/// all, so the tests below would see any that got through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_policy_every_kind_of_request_reaches_the_other_host() {
    let (h, evil) = start(json!({})).await;
    make_every_request(&h, &evil).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let seen = evil.requests();
        let missing: Vec<&str> = KINDS
            .iter()
            .filter(|k| !seen.iter().any(|r| r == &format!("/k/{k}")))
            .copied()
            .collect();
        if missing.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never asked for {missing:?}: {seen:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(h.shutdown().await);
}

/// With `policy` refusing the other host, each of the page's requests fails and none reaches it.
async fn every_request_is_refused(policy: Value) {
    let (h, evil) = start(policy.clone()).await;
    let report = make_every_request(&h, &evil).await;
    for kind in KINDS {
        let how = if kind == "beacon" { "sent" } else { "failed" };
        assert!(
            report.contains(&format!("{kind}={how}")),
            "{policy}: {kind} should have {how}: {report}"
        );
    }
    assert_eq!(
        evil.requests(),
        Vec::<String>::new(),
        "{policy}: nothing reached it"
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocked_domains_hold_for_every_request_a_page_makes() {
    every_request_is_refused(json!({"blocked_domains": ["evil.test"]})).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_domains_hold_for_every_request_a_page_makes() {
    every_request_is_refused(json!({"allowed_domains": ["localhost", "127.0.0.1"]})).await;
}
