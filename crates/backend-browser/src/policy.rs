//! Which URLs the browser may open and load: allowed/blocked domains (hosts compared in one
//! canonical form, `host`; WebSocket addresses through network rules, `websocket`), `file://`
//! and `chrome://` off unless enabled, no `javascript:` at all.

mod host;
mod websocket;

use serde::Deserialize;
use serde_json::Value;
use url::Url;

use crate::texts;
use host::Host;

/// Why the URL policy refuses a URL; the text is written for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRefused {
    /// A `file://` URL while `allow_file_urls` is off.
    #[error("{}", texts::file_urls_off(.0))]
    FileUrlsOff(String),
    /// A `chrome://`, `chrome-extension://` or `devtools://` URL while `allow_chrome_urls` is off.
    #[error("{}", texts::chrome_urls_off(.0))]
    ChromeUrlsOff(String),
    /// A scheme the browser does not open (`javascript:`, `ftp:`, none, or no host).
    #[error("{}", texts::bad_scheme(.0))]
    BadScheme(String),
    /// A host in `blocked_domains` (canonical form).
    #[error("{}", texts::domain_blocked(.0))]
    DomainBlocked(String),
    /// A host outside a non-empty `allowed_domains`.
    #[error("{}", texts::domain_not_allowed(.host, .allowed))]
    DomainNotAllowed {
        /// The host asked for (canonical form).
        host: String,
        /// The allowed domains.
        allowed: Vec<String>,
    },
}

/// The browser's URL policy (routing-table options `allowed_domains`, `blocked_domains`,
/// `allow_file_urls`, `allow_chrome_urls`).
///
/// Hosts are compared in one canonical form (lowercase, punycode, no trailing dot, IPv4 in
/// dotted decimal however it was written, IPv4-mapped IPv6 as IPv4), on both sides.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UrlPolicy {
    /// When not empty, only these hosts (and their subdomains) may be opened or loaded from.
    pub allowed_domains: Vec<String>,
    /// Hosts (and their subdomains) that may never be opened or loaded from; wins over
    /// `allowed_domains`. An entry that is not a host (see [`UrlPolicy::validate`]) matches
    /// nothing.
    pub blocked_domains: Vec<String>,
    /// Allow `file://` URLs.
    pub allow_file_urls: bool,
    /// Allow `chrome://`, `chrome-extension://` and `devtools://` URLs.
    pub allow_chrome_urls: bool,
}

/// The canonical host of `url` (see [`UrlPolicy`]), without port or credentials, if it has one.
pub fn host_of(url: &str) -> Option<String> {
    let parsed = Url::parse(url).ok()?;
    Host::from_url(parsed.host()?).map(|h| h.to_string())
}

/// The root name of a page (docs/design.md "root and process"): its canonical host without
/// port; `about`, `data`, `file` or `blob` for those schemes.
pub fn root_of(url: &str) -> String {
    let scheme = url
        .split_once(':')
        .map(|(s, _)| s.trim().to_ascii_lowercase())
        .unwrap_or_default();
    match scheme.as_str() {
        "about" | "data" | "file" | "blob" => scheme,
        _ => host_of(url).unwrap_or(scheme),
    }
}

/// The entries of a domain list that are hosts, in canonical form.
fn hosts(list: &[String]) -> Vec<Host> {
    list.iter().filter_map(|d| entry_host(d)).collect()
}

/// A domain-list entry as a host (`*.example.com` is `example.com`, which covers its subdomains).
fn entry_host(entry: &str) -> Option<Host> {
    Host::parse(entry.trim().trim_start_matches("*."))
}

impl UrlPolicy {
    /// Whether any domain list is set (every request the pages make is then checked too).
    pub fn restricts(&self) -> bool {
        !self.allowed_domains.is_empty() || !self.blocked_domains.is_empty()
    }

    /// `Ok` when every domain-list entry is a host; else the first that is not, as a text for
    /// the person who wrote the options.
    pub fn validate(&self) -> Result<(), String> {
        for (list, entries) in [
            ("allowed_domains", &self.allowed_domains),
            ("blocked_domains", &self.blocked_domains),
        ] {
            if let Some(bad) = entries.iter().find(|e| entry_host(e).is_none()) {
                return Err(texts::bad_domain_entry(list, bad));
            }
        }
        Ok(())
    }

    /// `Ok` when the model may open `url`, else why not (its text is for the model).
    pub fn check(&self, url: &str) -> Result<(), UrlRefused> {
        let refused = || UrlRefused::BadScheme(url.to_owned());
        let parsed = Url::parse(url).map_err(|_| refused())?;
        match parsed.scheme() {
            "http" | "https" => {}
            "about" | "data" => return Ok(()),
            "file" if self.allow_file_urls => return Ok(()),
            "file" => return Err(UrlRefused::FileUrlsOff(url.to_owned())),
            "chrome" | "chrome-extension" | "devtools" if self.allow_chrome_urls => return Ok(()),
            "chrome" | "chrome-extension" | "devtools" => {
                return Err(UrlRefused::ChromeUrlsOff(url.to_owned()));
            }
            _ => return Err(refused()),
        }
        let host = parsed.host().and_then(Host::from_url).ok_or_else(refused)?;
        self.check_host(&host)
    }

    /// `Ok` when a page may load `url` (a request the browser paused): hosts and schemes as for
    /// [`UrlPolicy::check`], except that addresses that reach no host (`blob:`, `data:`,
    /// `about:`, …) pass. An address that cannot be read is refused.
    pub fn check_request(&self, url: &str) -> Result<(), UrlRefused> {
        let Ok(parsed) = Url::parse(url) else {
            return self.check(url);
        };
        match parsed.scheme() {
            "http" | "https" | "file" | "chrome" | "chrome-extension" | "devtools" => {
                self.check(url)
            }
            _ => Ok(()),
        }
    }

    /// The domain lists as WebSocket rules for `Network.emulateNetworkConditionsByRule`
    /// (WebSocket connections are not requests the browser pauses).
    pub(crate) fn websocket_rules(&self) -> Vec<Value> {
        websocket::rules(&hosts(&self.blocked_domains), &hosts(&self.allowed_domains))
    }

    fn check_host(&self, host: &Host) -> Result<(), UrlRefused> {
        let within = |list: &[String]| {
            list.iter()
                .any(|e| entry_host(e).is_some_and(|d| host.is_within(&d)))
        };
        if within(&self.blocked_domains) {
            return Err(UrlRefused::DomainBlocked(host.to_string()));
        }
        if !self.allowed_domains.is_empty() && !within(&self.allowed_domains) {
            return Err(UrlRefused::DomainNotAllowed {
                host: host.to_string(),
                allowed: self.allowed_domains.clone(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_roots() {
        assert_eq!(
            host_of("http://user@Example.COM:8080/a?b").as_deref(),
            Some("example.com")
        );
        assert_eq!(host_of("http://[::1]:80/").as_deref(), Some("::1"));
        assert_eq!(root_of("http://127.0.0.1:4000/form.html"), "127.0.0.1");
        assert_eq!(root_of("about:blank"), "about");
        assert_eq!(root_of("data:text/html,hi"), "data");
        assert_eq!(root_of("file:///tmp/x.html"), "file");
    }

    #[test]
    fn roots_name_hosts_in_their_canonical_form() {
        assert_eq!(root_of("http://SHOP.test.:4000/"), "shop.test");
        assert_eq!(root_of("http://[::ffff:127.0.0.1]:4000/"), "127.0.0.1");
        assert_eq!(root_of("http://0x7f.1/"), "127.0.0.1");
        assert_eq!(root_of("http://bücher.test/"), "xn--bcher-kva.test");
    }

    #[test]
    fn policy_checks() {
        let p = UrlPolicy {
            allowed_domains: vec!["example.com".into(), "127.0.0.1".into()],
            blocked_domains: vec!["ads.example.com".into()],
            ..UrlPolicy::default()
        };
        assert!(p.check("https://www.example.com/x").is_ok());
        assert!(p.check("http://127.0.0.1:9/").is_ok());
        assert!(p.check("about:blank").is_ok());
        assert_eq!(
            p.check("https://ads.example.com/").unwrap_err().to_string(),
            crate::texts::domain_blocked("ads.example.com")
        );
        assert_eq!(
            p.check("https://evil.org/").unwrap_err().to_string(),
            crate::texts::domain_not_allowed("evil.org", &p.allowed_domains)
        );
        assert_eq!(
            p.check("file:///etc/passwd").unwrap_err().to_string(),
            crate::texts::file_urls_off("file:///etc/passwd")
        );
        assert_eq!(
            p.check("chrome://settings").unwrap_err().to_string(),
            crate::texts::chrome_urls_off("chrome://settings")
        );
        assert_eq!(
            p.check("javascript:alert(1)").unwrap_err().to_string(),
            crate::texts::bad_scheme("javascript:alert(1)")
        );
        let open = UrlPolicy {
            allow_file_urls: true,
            ..UrlPolicy::default()
        };
        assert!(open.check("file:///tmp/a.html").is_ok());
        assert!(open.check("https://anything.net").is_ok());
    }

    /// Every spelling of a blocked host is refused, under its canonical name.
    #[test]
    fn a_blocked_host_is_refused_however_it_is_written() {
        let p = UrlPolicy {
            blocked_domains: vec!["evil.test".into(), "127.0.0.1".into(), "bücher.test".into()],
            ..UrlPolicy::default()
        };
        for (url, host) in [
            ("http://evil.test.:8080/", "evil.test"),
            ("http://EVIL.test.:8080/", "evil.test"),
            ("http://sub.evil.test./", "sub.evil.test"),
            ("http://evil.test../", "evil.test"),
            ("https://ev%69l.test/", "evil.test"),
            ("http://ｅｖｉｌ.test/", "evil.test"),
            ("http://[::ffff:127.0.0.1]:8080/", "127.0.0.1"),
            ("http://[::ffff:7f00:1]/", "127.0.0.1"),
            ("http://[0:0:0:0:0:ffff:127.0.0.1]/", "127.0.0.1"),
            ("http://2130706433/", "127.0.0.1"),
            ("http://0177.0.0.1/", "127.0.0.1"),
            ("http://0x7f.1/", "127.0.0.1"),
            ("http://127.1/", "127.0.0.1"),
            ("http://127.0.0.1./", "127.0.0.1"),
            ("http://xn--bcher-kva.test/", "xn--bcher-kva.test"),
            ("http://BÜCHER.test./", "xn--bcher-kva.test"),
        ] {
            assert_eq!(
                p.check(url).map_err(|e| e.to_string()),
                Err(crate::texts::domain_blocked(host)),
                "{url}"
            );
            assert!(p.check_request(url).is_err(), "{url} as a request");
        }
        assert!(p.check("http://notevil.test/").is_ok());
        assert!(p.check("http://127.0.0.2/").is_ok());
    }

    /// Entries are read the same way: written in any spelling, they name the same host.
    #[test]
    fn entries_in_any_spelling_name_the_same_host() {
        let p = UrlPolicy {
            blocked_domains: vec!["*.Evil.TEST.".into(), "[::FFFF:7f00:1]".into()],
            ..UrlPolicy::default()
        };
        assert!(p.validate().is_ok());
        assert!(p.check("http://a.evil.test/").is_err());
        assert!(p.check("http://evil.test/").is_err());
        assert!(p.check("http://127.0.0.1/").is_err());
    }

    /// An allow list lets through exactly its hosts (and their subdomains), whatever the
    /// spelling; nothing that only looks like them.
    #[test]
    fn an_allow_list_is_not_widened_by_spellings() {
        let p = UrlPolicy {
            allowed_domains: vec!["shop.test".into(), "127.0.0.1".into()],
            ..UrlPolicy::default()
        };
        for url in [
            "http://SHOP.test./",
            "http://a.shop.test./x",
            "http://[::ffff:127.0.0.1]/",
            "http://0x7f.1:9/",
        ] {
            assert!(p.check(url).is_ok(), "{url}");
        }
        for (url, host) in [
            // A backslash ends the authority in http(s) URLs: this is evil.test.
            (r"http://evil.test\@shop.test/", "evil.test"),
            ("http://evil.test#@shop.test/", "evil.test"),
            ("http://shop.test.evil.test/", "shop.test.evil.test"),
            ("http://shop.test@evil.test/", "evil.test"),
            ("http://xshop.test/", "xshop.test"),
            ("http://[::ffff:127.0.0.2]/", "127.0.0.2"),
            ("http://127.0.0.1.evil.test/", "127.0.0.1.evil.test"),
        ] {
            assert_eq!(
                p.check(url).map_err(|e| e.to_string()),
                Err(crate::texts::domain_not_allowed(host, &p.allowed_domains)),
                "{url}"
            );
        }
    }

    #[test]
    fn requests_to_addresses_without_a_host_pass() {
        let p = UrlPolicy {
            allowed_domains: vec!["shop.test".into()],
            ..UrlPolicy::default()
        };
        for url in [
            "blob:http://shop.test/5d4b",
            "data:image/png;base64,AAAA",
            "about:blank",
        ] {
            assert!(p.check_request(url).is_ok(), "{url}");
        }
        assert!(p.check_request("https://cdn.test/app.js").is_err());
        assert!(
            p.check_request("http://exa mple.test/").is_err(),
            "unreadable"
        );
        assert!(p.check_request("file:///etc/passwd").is_err());
    }

    #[test]
    fn a_domain_entry_that_is_no_host_is_named() {
        for (list, entry) in [
            ("blocked_domains", "http://evil.test/"),
            ("blocked_domains", "evil.test:8080"),
            ("allowed_domains", "shop test"),
            ("allowed_domains", ""),
        ] {
            let mut p = UrlPolicy::default();
            if list == "blocked_domains" {
                p.blocked_domains.push(entry.into());
            } else {
                p.allowed_domains.push(entry.into());
            }
            assert_eq!(
                p.validate(),
                Err(crate::texts::bad_domain_entry(list, entry)),
                "{entry}"
            );
        }
    }
}
