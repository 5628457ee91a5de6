//! Whom an HTTP request says it is for, read exactly, and the one check both of deft's HTTP
//! servers (`deft serve`, `deft mcp … --http`) make with it against DNS rebinding and
//! cross-origin requests.
//!
//! The `Host` header and the authority of the `Origin` header are parsed into a host and a port
//! — never matched as text, so `localhost:8010.evil.example` is no `localhost` and
//! `http://127.0.0.1:8010.evil.example` no loopback origin — and compared exactly. A request
//! must have exactly one `Host`. On a loopback listener the `Host` must name this machine
//! (`localhost`, a 127.x address, `[::1]`) or a name the listener was told to allow (a proxy in
//! front that passes its own name); the port is not compared, since a local TLS proxy forwards
//! requests for its own port. An `Origin`, when sent, must be the request's own (host and port,
//! a missing port being the scheme's default), a loopback origin on a loopback listener, or an
//! allowed name.

use std::net::{Ipv4Addr, Ipv6Addr};

use http::header::{HOST, ORIGIN};
use http::{HeaderMap, StatusCode};

use crate::texts;

/// A host and an optional port, as `Host` carries them (`example.com:8080`, `[::1]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authority {
    /// The host name (lowercase) or address (an IPv6 one without brackets).
    pub host: String,
    /// The port, when one was given.
    pub port: Option<u16>,
}

impl Authority {
    /// Parses `host[:port]` strictly: a name of letters, digits, `-`, `_` and `.`, an IPv4
    /// address or a bracketed IPv6 one, then optionally `:` and a port of 1 to 65535. Anything
    /// else (user info, a path, a second colon, a port that is not a number) is `None`.
    pub fn parse(text: &str) -> Option<Authority> {
        let (host, port) = match text.strip_prefix('[') {
            Some(rest) => {
                let (inside, after) = rest.split_once(']')?;
                inside.parse::<Ipv6Addr>().ok()?;
                (inside.to_owned(), after)
            }
            None => {
                let end = text.find(':').unwrap_or(text.len());
                let host = &text[..end];
                let name_chars =
                    |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
                if host.is_empty() || !host.chars().all(name_chars) {
                    return None;
                }
                (host.to_ascii_lowercase(), &text[end..])
            }
        };
        let port = match port {
            "" => None,
            colon_port => {
                let digits = colon_port.strip_prefix(':')?;
                if digits.is_empty()
                    || digits.len() > 5
                    || !digits.bytes().all(|b| b.is_ascii_digit())
                {
                    return None;
                }
                Some(digits.parse::<u16>().ok().filter(|p| *p > 0)?)
            }
        };
        Some(Authority { host, port })
    }

    /// Whether the host names this machine: `localhost`, an address in 127.0.0.0/8, or `::1`.
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost"
            || self.host.parse::<Ipv4Addr>().is_ok_and(|a| a.is_loopback())
            || self.host.parse::<Ipv6Addr>().is_ok_and(|a| a.is_loopback())
    }
}

/// An `Origin` header's scheme and authority: `https://example.com:8443`. `null` (an opaque
/// origin), a path or anything unparsable is `None`.
fn parse_origin(text: &str) -> Option<(String, Authority)> {
    let (scheme, rest) = text.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if !scheme
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    Some((scheme, Authority::parse(rest)?))
}

/// The port a scheme means when none is written.
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

/// What a listener accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostPolicy {
    /// The listener is on a loopback address: `Host` must name this machine or an allowed name.
    pub loopback: bool,
    /// Host names also accepted (lowercase), for a proxy in front that passes its own name.
    pub allowed: Vec<String>,
}

impl HostPolicy {
    /// The policy of a listener on `addr`, also accepting `allowed` names.
    pub fn new(addr: std::net::SocketAddr, allowed: &[String]) -> HostPolicy {
        HostPolicy {
            loopback: addr.ip().is_loopback(),
            allowed: allowed
                .iter()
                .map(|a| a.trim().to_ascii_lowercase())
                .collect(),
        }
    }

    fn allows(&self, host: &str) -> bool {
        self.allowed.iter().any(|a| a == host)
    }
}

/// Why a request was refused; displays as the answer's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// No `Host` header.
    MissingHost,
    /// Two or more `Host` headers.
    DuplicateHost,
    /// A `Host` that is not a host with an optional port.
    BadHost,
    /// A `Host` that does not name this machine, on a loopback listener.
    ForeignHost,
    /// An `Origin` that is not one origin, or another site's.
    CrossOrigin,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

impl std::error::Error for Refused {}

impl Refused {
    /// The answer's text.
    pub fn text(self) -> &'static str {
        match self {
            Refused::MissingHost => texts::HOST_MISSING,
            Refused::DuplicateHost => texts::HOST_DUPLICATE,
            Refused::BadHost => texts::HOST_MALFORMED,
            Refused::ForeignHost => texts::HOST_FOREIGN,
            Refused::CrossOrigin => texts::CROSS_ORIGIN,
        }
    }

    /// The status to answer with: 400 for a missing, doubled or malformed `Host`, else 403.
    pub fn status(self) -> StatusCode {
        match self {
            Refused::MissingHost | Refused::DuplicateHost | Refused::BadHost => {
                StatusCode::BAD_REQUEST
            }
            Refused::ForeignHost | Refused::CrossOrigin => StatusCode::FORBIDDEN,
        }
    }
}

/// Checks a request's `Host` and `Origin` under `policy` (module docs).
pub fn check(headers: &HeaderMap, policy: &HostPolicy) -> Result<(), Refused> {
    let mut hosts = headers.get_all(HOST).iter();
    let host = hosts.next().ok_or(Refused::MissingHost)?;
    if hosts.next().is_some() {
        return Err(Refused::DuplicateHost);
    }
    let host = host
        .to_str()
        .ok()
        .and_then(Authority::parse)
        .ok_or(Refused::BadHost)?;
    if policy.loopback && !host.is_loopback() && !policy.allows(&host.host) {
        return Err(Refused::ForeignHost);
    }
    let mut origins = headers.get_all(ORIGIN).iter();
    let Some(origin) = origins.next() else {
        return Ok(());
    };
    if origins.next().is_some() {
        return Err(Refused::CrossOrigin);
    }
    let (scheme, origin) = origin
        .to_str()
        .ok()
        .and_then(parse_origin)
        .ok_or(Refused::CrossOrigin)?;
    let scheme_port = default_port(&scheme);
    let same = origin.host == host.host
        && origin.port.or(scheme_port).is_some()
        && origin.port.or(scheme_port) == host.port.or(scheme_port);
    let local = policy.loopback && origin.is_loopback();
    if same || local || policy.allows(&origin.host) {
        Ok(())
    } else {
        Err(Refused::CrossOrigin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    fn loopback() -> HostPolicy {
        HostPolicy {
            loopback: true,
            allowed: Vec::new(),
        }
    }

    #[test]
    fn authorities_are_parsed_exactly() {
        let a = |h: &str, p: Option<u16>| {
            Some(Authority {
                host: h.into(),
                port: p,
            })
        };
        assert_eq!(
            Authority::parse("LocalHost:8010"),
            a("localhost", Some(8010))
        );
        assert_eq!(Authority::parse("[::1]:9"), a("::1", Some(9)));
        assert_eq!(Authority::parse("example.com"), a("example.com", None));
        for bad in [
            "localhost:8010.evil.example",
            "localhost:",
            "localhost:0",
            "localhost:65536",
            "localhost:80:80",
            "user@localhost",
            "localhost/x",
            "local host",
            "[::1",
            "[evil]:80",
            "",
            ":80",
        ] {
            assert_eq!(Authority::parse(bad), None, "{bad}");
        }
        assert!(Authority::parse("127.0.0.2").is_some_and(|a| a.is_loopback()));
        assert!(!Authority::parse("127.0.0.1.evil.example").is_some_and(|a| a.is_loopback()));
    }

    #[test]
    fn a_loopback_listener_takes_requests_for_this_machine_only() {
        let p = loopback();
        assert_eq!(check(&headers(&[("host", "127.0.0.1:8010")]), &p), Ok(()));
        assert_eq!(check(&headers(&[("host", "localhost")]), &p), Ok(()));
        assert_eq!(check(&headers(&[("host", "[::1]:9")]), &p), Ok(()));
        assert_eq!(
            check(&headers(&[("host", "evil.example:8010")]), &p),
            Err(Refused::ForeignHost)
        );
        assert_eq!(
            check(&headers(&[("host", "localhost:8010.evil.example")]), &p),
            Err(Refused::BadHost)
        );
        assert_eq!(
            check(
                &headers(&[("host", "localhost:8010"), ("host", "evil.example")]),
                &p
            ),
            Err(Refused::DuplicateHost)
        );
        assert_eq!(check(&headers(&[]), &p), Err(Refused::MissingHost));
        // A proxy's own name, when allowed.
        let proxied = HostPolicy {
            loopback: true,
            allowed: vec!["deft.example.com".into()],
        };
        assert_eq!(
            check(&headers(&[("host", "deft.example.com")]), &proxied),
            Ok(())
        );
        // Any name on another address (a token guards it), but still one well-formed Host.
        let open = HostPolicy::default();
        assert_eq!(check(&headers(&[("host", "10.0.0.5:1")]), &open), Ok(()));
        assert_eq!(
            check(&headers(&[("host", "a"), ("host", "b")]), &open),
            Err(Refused::DuplicateHost)
        );
    }

    #[test]
    fn an_origin_is_the_request_s_own_host_and_port() {
        let p = loopback();
        let with = |origin: &'static str| {
            check(
                &headers(&[("host", "localhost:8010"), ("origin", origin)]),
                &p,
            )
        };
        assert_eq!(with("http://localhost:8010"), Ok(()));
        assert_eq!(
            with("http://localhost:3000"),
            Ok(()),
            "loopback to loopback"
        );
        assert_eq!(with("http://[::1]:3000"), Ok(()));
        for bad in [
            "http://evil.example",
            "http://127.0.0.1:8010.evil.example",
            "http://localhost.evil.example:8010",
            "null",
            "localhost:8010",
        ] {
            assert_eq!(with(bad), Err(Refused::CrossOrigin), "{bad}");
        }
        // Elsewhere: the same host and port, the port defaulting to the scheme's.
        let open = HostPolicy::default();
        let on = |host: &'static str, origin: &'static str| {
            check(&headers(&[("host", host), ("origin", origin)]), &open)
        };
        assert_eq!(on("deft.example.com", "https://deft.example.com"), Ok(()));
        assert_eq!(
            on("deft.example.com:443", "https://deft.example.com"),
            Ok(())
        );
        assert_eq!(
            on("deft.example.com:8030", "http://deft.example.com:8030"),
            Ok(())
        );
        assert_eq!(
            on("deft.example.com:8030", "http://deft.example.com:9999"),
            Err(Refused::CrossOrigin)
        );
        assert_eq!(
            on("deft.example.com", "https://evil.example"),
            Err(Refused::CrossOrigin)
        );
        assert_eq!(
            check(
                &headers(&[
                    ("host", "localhost:1"),
                    ("origin", "http://localhost:1"),
                    ("origin", "http://evil.example")
                ]),
                &p
            ),
            Err(Refused::CrossOrigin)
        );
    }
}
