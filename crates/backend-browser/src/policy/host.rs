//! Hosts in one canonical form, so that every way of writing a host compares equal to the
//! others: the URL standard's host parser (what Chromium does too: percent-decoding, lowercase,
//! IDNA to punycode, the IPv4 numeric forms `2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`), then
//! trailing dots dropped and an IPv4-mapped IPv6 address (`[::ffff:127.0.0.1]`) read as its
//! IPv4 address.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

/// A host in its canonical form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Host {
    /// A domain name: lowercase ASCII (punycode for other scripts), no trailing dot.
    Domain(String),
    /// An IPv4 address, also when written as an IPv4-mapped IPv6 address.
    V4(Ipv4Addr),
    /// Any other IPv6 address.
    V6(Ipv6Addr),
}

impl Host {
    /// The canonical form of a host as a URL parser found it, `None` for an empty one.
    pub(crate) fn from_url(host: url::Host<&str>) -> Option<Host> {
        match host {
            url::Host::Domain(d) => {
                let bare = d.trim_end_matches('.');
                if bare.is_empty() {
                    None
                } else if bare.len() == d.len() {
                    Some(Host::Domain(d.to_owned()))
                } else {
                    // Without its dots the name may read as an address (`127.0.0.1..`).
                    Host::parse(bare)
                }
            }
            url::Host::Ipv4(a) => Some(Host::V4(a)),
            url::Host::Ipv6(a) => Some(a.to_ipv4_mapped().map_or(Host::V6(a), Host::V4)),
        }
    }

    /// The canonical form of a host written on its own (`Example.COM.`, `0x7f.1`, `::1` or
    /// `[::1]`), `None` when it is not a host.
    pub(crate) fn parse(raw: &str) -> Option<Host> {
        let raw = raw.trim();
        let bracketed;
        let raw = if raw.contains(':') && !raw.starts_with('[') {
            bracketed = format!("[{raw}]");
            &bracketed
        } else {
            raw
        };
        let parsed = url::Host::parse(raw).ok()?;
        Host::from_url(match &parsed {
            url::Host::Domain(d) => url::Host::Domain(d.as_str()),
            url::Host::Ipv4(a) => url::Host::Ipv4(*a),
            url::Host::Ipv6(a) => url::Host::Ipv6(*a),
        })
    }

    /// Whether this host is `entry` or, when `entry` is a domain, one of its subdomains.
    pub(crate) fn is_within(&self, entry: &Host) -> bool {
        match (self, entry) {
            (Host::Domain(h), Host::Domain(d)) => {
                h == d || h.strip_suffix(d.as_str()).is_some_and(|s| s.ends_with('.'))
            }
            _ => self == entry,
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Domain(d) => f.write_str(d),
            Host::V4(a) => write!(f, "{a}"),
            // The URL standard's spelling (what Chromium shows), without the brackets.
            Host::V6(a) => {
                let s = url::Host::<String>::Ipv6(*a).to_string();
                f.write_str(s.trim_start_matches('[').trim_end_matches(']'))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each way of writing a host and its canonical form (`None`: not a host).
    const TABLE: &[(&str, Option<&str>)] = &[
        ("evil.test", Some("evil.test")),
        ("EVIL.test", Some("evil.test")),
        ("evil.test.", Some("evil.test")),
        ("EVIL.test.", Some("evil.test")),
        ("evil.test..", Some("evil.test")),
        ("sub.evil.test.", Some("sub.evil.test")),
        ("ev%69l.test", Some("evil.test")),
        ("evil%2Etest", Some("evil.test")),
        ("ｅｖｉｌ.test", Some("evil.test")),
        ("evil。test", Some("evil.test")),
        ("bücher.test", Some("xn--bcher-kva.test")),
        ("BÜCHER.test.", Some("xn--bcher-kva.test")),
        ("xn--bcher-kva.test", Some("xn--bcher-kva.test")),
        ("127.0.0.1", Some("127.0.0.1")),
        ("127.0.0.1.", Some("127.0.0.1")),
        ("127.0.0.1..", Some("127.0.0.1")),
        ("2130706433", Some("127.0.0.1")),
        ("0177.0.0.1", Some("127.0.0.1")),
        ("0x7f.1", Some("127.0.0.1")),
        ("0x7F.0.0.1", Some("127.0.0.1")),
        ("127.1", Some("127.0.0.1")),
        ("0x7f000001", Some("127.0.0.1")),
        ("[::ffff:127.0.0.1]", Some("127.0.0.1")),
        ("[::ffff:7f00:1]", Some("127.0.0.1")),
        ("[0:0:0:0:0:ffff:127.0.0.1]", Some("127.0.0.1")),
        ("[0:0:0:0:0:FFFF:7F00:0001]", Some("127.0.0.1")),
        ("::ffff:7f00:1", Some("127.0.0.1")),
        ("[::1]", Some("::1")),
        ("::1", Some("::1")),
        ("[0:0:0:0:0:0:0:1]", Some("::1")),
        ("[2001:DB8::0:1]", Some("2001:db8::1")),
        ("localhost.", Some("localhost")),
        ("", None),
        (".", None),
        ("..", None),
        ("evil test", None),
        ("evil.test:8080", None),
        ("a/b", None),
        ("x.127.0.0.1", None),
        ("256.0.0.1", None),
        ("[::ffff:127.0.0.1", None),
    ];

    #[test]
    fn every_spelling_of_a_host_has_one_canonical_form() {
        for (raw, want) in TABLE {
            let got = Host::parse(raw).map(|h| h.to_string());
            assert_eq!(got.as_deref(), *want, "{raw:?}");
        }
    }

    #[test]
    fn a_canonical_form_is_its_own_canonical_form() {
        for (_, want) in TABLE {
            if let Some(c) = want {
                let again = Host::parse(c).map(|h| h.to_string());
                assert_eq!(again.as_deref(), Some(*c));
            }
        }
    }

    #[test]
    fn a_host_is_within_itself_its_parent_domains_and_nothing_else() {
        let host = |s: &str| Host::parse(s).expect("a host");
        let sub = host("a.b.evil.test");
        assert!(sub.is_within(&host("evil.test")));
        assert!(sub.is_within(&host("b.evil.test")));
        assert!(sub.is_within(&host("a.b.evil.test")));
        assert!(
            !sub.is_within(&host("vil.test")),
            "a label is matched whole"
        );
        assert!(!host("evil.test").is_within(&host("sub.evil.test")));
        assert!(!host("notevil.test").is_within(&host("evil.test")));
        let v4 = host("127.0.0.1");
        assert!(v4.is_within(&host("0x7f.1")));
        assert!(!v4.is_within(&host("0.0.1")), "an address is matched whole");
        assert!(!host("127.0.0.2").is_within(&v4));
        assert!(!host("::1").is_within(&v4));
        assert!(host("[::1]").is_within(&host("::1")));
    }
}
