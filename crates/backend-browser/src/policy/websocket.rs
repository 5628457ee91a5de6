//! The domain policy for WebSocket connections, which request interception (`Fetch`) never
//! sees: rules for `Network.emulateNetworkConditionsByRule` that take the network away from a
//! refused `ws://` or `wss://` address (the connection fails before it is made), first match
//! wins. Chromium canonicalises a URL before matching (lowercase, punycode, the IPv4 numeric
//! forms), so each policy entry needs patterns only for the spellings it keeps: trailing dots
//! and, for an IPv4 address, its IPv4-mapped IPv6 form.

use serde_json::{Value, json};

use super::host::Host;

/// The rules for `policy`'s domain lists, in order: refused hosts, then (with an allow list)
/// allowed hosts and every other WebSocket address refused.
pub(crate) fn rules(blocked: &[Host], allowed: &[Host]) -> Vec<Value> {
    let mut out: Vec<Value> = blocked
        .iter()
        .flat_map(hostnames)
        .map(|h| rule(&h, true))
        .collect();
    if !allowed.is_empty() {
        out.extend(allowed.iter().flat_map(hostnames).map(|h| rule(&h, false)));
        out.push(rule("*", true));
    }
    out
}

/// One rule: WebSocket addresses on `hostname` (a URLPattern hostname) offline, or left alone.
fn rule(hostname: &str, offline: bool) -> Value {
    json!({
        "urlPattern": format!("ws{{s}}?://{hostname}:*/*"),
        "offline": offline,
        "latency": 0,
        "downloadThroughput": -1,
        "uploadThroughput": -1,
    })
}

/// URLPattern hostnames for every spelling of `host` Chromium may still show.
fn hostnames(host: &Host) -> Vec<String> {
    match host {
        // The domain and its subdomains, with any trailing dots.
        Host::Domain(d) => vec![format!("{{*.}}?{}{{.}}*", escape(d))],
        Host::V4(a) => {
            let [b0, b1, b2, b3] = a.octets();
            let high = u16::from_be_bytes([b0, b1]);
            let low = u16::from_be_bytes([b2, b3]);
            vec![
                format!("{}{{.}}*", escape(&a.to_string())),
                escape(&format!("[::ffff:{high:x}:{low:x}]")),
            ]
        }
        Host::V6(_) => vec![escape(&format!("[{host}]"))],
    }
}

/// `text` as literal URLPattern text: everything but letters, digits, dots and hyphens escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if !(c.is_ascii_alphanumeric() || c == '.' || c == '-') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(list: &[&str]) -> Vec<Host> {
        list.iter()
            .map(|h| Host::parse(h).expect("a host"))
            .collect()
    }

    fn patterns(rules: &[Value]) -> Vec<(String, bool)> {
        rules
            .iter()
            .map(|r| {
                (
                    r["urlPattern"].as_str().unwrap_or_default().to_owned(),
                    r["offline"] == true,
                )
            })
            .collect()
    }

    #[test]
    fn refused_hosts_come_first_with_each_spelling_chromium_keeps() {
        let rules = rules(&hosts(&["Evil.test.", "0x7f.1", "[2001:db8::1]"]), &[]);
        assert_eq!(
            patterns(&rules),
            vec![
                (r"ws{s}?://{*.}?evil.test{.}*:*/*".to_owned(), true),
                (r"ws{s}?://127.0.0.1{.}*:*/*".to_owned(), true),
                (r"ws{s}?://\[\:\:ffff\:7f00\:1\]:*/*".to_owned(), true),
                (r"ws{s}?://\[2001\:db8\:\:1\]:*/*".to_owned(), true),
            ]
        );
        assert_eq!(
            rules[0]["downloadThroughput"], -1,
            "no throttling: {rules:?}"
        );
    }

    #[test]
    fn an_allow_list_lets_its_hosts_through_and_refuses_the_rest() {
        let rules = rules(&hosts(&["ads.shop.test"]), &hosts(&["shop.test"]));
        assert_eq!(
            patterns(&rules),
            vec![
                (r"ws{s}?://{*.}?ads.shop.test{.}*:*/*".to_owned(), true),
                (r"ws{s}?://{*.}?shop.test{.}*:*/*".to_owned(), false),
                ("ws{s}?://*:*/*".to_owned(), true),
            ]
        );
    }

    #[test]
    fn no_lists_no_rules() {
        assert!(rules(&[], &[]).is_empty());
    }

    #[test]
    fn pattern_syntax_in_a_name_is_literal() {
        assert_eq!(escape("a_b*c.test"), r"a\_b\*c.test");
    }
}
