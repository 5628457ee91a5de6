//! Where a webhook may POST (server-side request forgery): a URL must be http(s) with a host
//! and no credentials, and its host may not be or resolve to an address of this machine or
//! its networks — loopback, private (RFC 1918), link-local, shared (100.64/10), unique-local,
//! unspecified, multicast, broadcast, or such an address inside an IPv4-mapped, NAT64 or 6to4
//! IPv6 one — unless the server was started allowing them. Checked when a webhook is saved and
//! again on the address each delivery actually connects to ([`PublicOnly`], the client's
//! resolver: the addresses it checks are the ones connected to, so a name that re-resolves to
//! a private address between the checks cannot slip through).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

use crate::texts;

/// The longest URL a webhook may have.
pub const MAX_URL_CHARS: usize = 2_048;

/// How long saving a webhook waits for its host's name to resolve.
const SAVE_LOOKUP: Duration = Duration::from_secs(5);

/// Why `ip` is not a public address, or `None` when it is one.
pub fn refused_range(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refused_v4(v4),
        IpAddr::V6(v6) => refused_v6(v6),
    }
}

fn refused_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_private() {
        Some("private (RFC 1918)")
    } else if ip.is_link_local() {
        Some("link-local")
    } else if a == 100 && (64..128).contains(&b) {
        Some("shared address space (100.64.0.0/10)")
    } else if ip.is_unspecified() || a == 0 {
        Some("unspecified (0.0.0.0/8)")
    } else if ip.is_multicast() {
        Some("multicast")
    } else if ip.is_broadcast() || a >= 240 {
        Some("reserved or broadcast")
    } else {
        None
    }
}

fn refused_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let segments = ip.segments();
    if let Some(v4) = embedded_v4(ip) {
        return refused_v4(v4);
    }
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_unspecified() {
        Some("unspecified")
    } else if ip.is_multicast() {
        Some("multicast")
    } else if segments[0] & 0xfe00 == 0xfc00 {
        Some("unique local (fc00::/7)")
    } else if segments[0] & 0xffc0 == 0xfe80 {
        Some("link-local")
    } else if segments[0] & 0xffc0 == 0xfec0 {
        Some("site-local")
    } else {
        None
    }
}

/// The IPv4 address an IPv6 one carries: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
/// (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) or 6to4 (`2002:aabb:ccdd::`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = Ipv4Addr::new(
        (s[6] >> 8) as u8,
        (s[6] & 0xff) as u8,
        (s[7] >> 8) as u8,
        (s[7] & 0xff) as u8,
    );
    if let Some(v4) = ip.to_ipv4_mapped() {
        Some(v4)
    } else if (s[..6] == [0; 6] && !ip.is_loopback() && !ip.is_unspecified())
        || (s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0; 4])
    {
        Some(tail)
    } else if s[0] == 0x2002 {
        Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            (s[1] & 0xff) as u8,
            (s[2] >> 8) as u8,
            (s[2] & 0xff) as u8,
        ))
    } else {
        None
    }
}

/// Checks a webhook URL as it is saved: its form, and — unless `allow_private` — that its
/// host is not, and does not resolve to, a refused address. A name that does not resolve now
/// is accepted (its deliveries fail and are retried, and are checked again then). The error
/// is the text for the `url` field.
pub async fn check_url(text: &str, allow_private: bool) -> Result<Url, String> {
    let url = parse_url(text)?;
    if allow_private {
        return Ok(url);
    }
    match url.host() {
        Some(Host::Ipv4(v4)) => refuse_literal(IpAddr::V4(v4))?,
        Some(Host::Ipv6(v6)) => refuse_literal(IpAddr::V6(v6))?,
        Some(Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if name == "localhost" || name.ends_with(".localhost") {
                return Err(texts::webhook_host_refused(&name, "loopback"));
            }
            let port = url.port_or_known_default().unwrap_or(443);
            let found =
                tokio::time::timeout(SAVE_LOOKUP, tokio::net::lookup_host((name.as_str(), port)))
                    .await;
            if let Ok(Ok(addrs)) = found {
                for addr in addrs {
                    if let Some(why) = refused_range(addr.ip()) {
                        return Err(texts::webhook_resolves_refused(
                            &name,
                            &addr.ip().to_string(),
                            why,
                        ));
                    }
                }
            }
        }
        None => return Err(texts::WEBHOOK_URL_NO_HOST.to_owned()),
    }
    Ok(url)
}

/// The URL's form alone: length, syntax, http(s), a host, no credentials.
pub fn parse_url(text: &str) -> Result<Url, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(texts::WEBHOOK_URL_EMPTY.to_owned());
    }
    if text.chars().count() > MAX_URL_CHARS {
        return Err(texts::webhook_url_too_long(MAX_URL_CHARS));
    }
    let url = Url::parse(text).map_err(|e| texts::webhook_url_unparsable(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(texts::webhook_url_scheme(url.scheme()));
    }
    if url.host().is_none() {
        return Err(texts::WEBHOOK_URL_NO_HOST.to_owned());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(texts::WEBHOOK_URL_CREDENTIALS.to_owned());
    }
    Ok(url)
}

/// Refuses a URL whose host is a literal refused address (the resolver never sees those).
pub fn refuse_literal(ip: IpAddr) -> Result<(), String> {
    match refused_range(ip) {
        Some(why) => Err(texts::webhook_host_refused(&ip.to_string(), why)),
        None => Ok(()),
    }
}

/// The delivery client's resolver: a name's public addresses only; a name with none fails the
/// attempt, saying which address was refused and why.
pub struct PublicOnly;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let (public, refused): (Vec<SocketAddr>, Vec<SocketAddr>) = found
                .into_iter()
                .partition(|a| refused_range(a.ip()).is_none());
            if public.is_empty() {
                let text = match refused.first() {
                    Some(a) => texts::webhook_resolves_refused(
                        &host,
                        &a.ip().to_string(),
                        refused_range(a.ip()).unwrap_or("refused"),
                    ),
                    None => texts::webhook_no_address(&host),
                };
                return Err(std::io::Error::other(text).into());
            }
            let addrs: Addrs = Box::new(public.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(text: &str) -> Option<&'static str> {
        refused_range(text.parse().unwrap())
    }

    #[test]
    fn private_and_special_addresses_are_refused() {
        for (addr, reason) in [
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("10.1.2.3", "private (RFC 1918)"),
            ("172.16.0.1", "private (RFC 1918)"),
            ("172.31.255.255", "private (RFC 1918)"),
            ("192.168.1.1", "private (RFC 1918)"),
            ("169.254.169.254", "link-local"),
            ("100.64.0.1", "shared address space (100.64.0.0/10)"),
            ("100.127.255.254", "shared address space (100.64.0.0/10)"),
            ("0.0.0.0", "unspecified (0.0.0.0/8)"),
            ("224.0.0.1", "multicast"),
            ("255.255.255.255", "reserved or broadcast"),
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("fc00::1", "unique local (fc00::/7)"),
            ("fd12:3456::1", "unique local (fc00::/7)"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:10.0.0.1", "private (RFC 1918)"),
            ("::ffff:169.254.169.254", "link-local"),
            ("64:ff9b::192.168.0.1", "private (RFC 1918)"),
            ("2002:c0a8:0101::1", "private (RFC 1918)"),
        ] {
            assert_eq!(why(addr), Some(reason), "{addr}");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for addr in [
            "8.8.8.8",
            "1.1.1.1",
            "100.63.255.255",
            "100.128.0.1",
            "172.32.0.1",
            "192.169.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
        ] {
            assert_eq!(why(addr), None, "{addr}");
        }
    }

    #[test]
    fn a_urls_form_is_checked_field_by_field() {
        assert_eq!(parse_url(" ").unwrap_err(), texts::WEBHOOK_URL_EMPTY);
        assert_eq!(
            parse_url("ftp://example.com/").unwrap_err(),
            texts::webhook_url_scheme("ftp")
        );
        assert_eq!(
            parse_url("https://user:pw@example.com/").unwrap_err(),
            texts::WEBHOOK_URL_CREDENTIALS
        );
        assert!(parse_url("not a url").unwrap_err().starts_with("not a URL"));
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        assert_eq!(
            parse_url(&long).unwrap_err(),
            texts::webhook_url_too_long(MAX_URL_CHARS)
        );
        assert!(parse_url("https://example.com/hook?x=1").is_ok());
    }

    #[tokio::test]
    async fn loopback_names_and_literals_are_refused_unless_allowed() {
        for (url, host, reason) in [
            ("http://127.0.0.1:8080/", "127.0.0.1", "loopback"),
            ("http://[::1]/", "::1", "loopback"),
            (
                "http://[::ffff:10.0.0.1]/",
                "::ffff:10.0.0.1",
                "private (RFC 1918)",
            ),
            ("http://localhost:3000/", "localhost", "loopback"),
            ("http://api.localhost/", "api.localhost", "loopback"),
            (
                "http://169.254.169.254/latest/",
                "169.254.169.254",
                "link-local",
            ),
        ] {
            assert_eq!(
                check_url(url, false).await.unwrap_err(),
                texts::webhook_host_refused(host, reason),
                "{url}"
            );
            assert!(check_url(url, true).await.is_ok(), "{url} allowed");
        }
        // a name that does not resolve now is kept: its deliveries are retried
        assert!(
            check_url("https://nowhere.invalid/hook", false)
                .await
                .is_ok()
        );
    }
}
