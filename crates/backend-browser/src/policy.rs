//! Which URLs the model may open: allowed/blocked domains, `file://` and `chrome://` off unless
//! enabled, no `javascript:` at all.

use serde::Deserialize;

use crate::texts;

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
    /// A host in `blocked_domains`.
    #[error("{}", texts::domain_blocked(.0))]
    DomainBlocked(String),
    /// A host outside a non-empty `allowed_domains`.
    #[error("{}", texts::domain_not_allowed(.host, .allowed))]
    DomainNotAllowed {
        /// The host asked for.
        host: String,
        /// The allowed domains.
        allowed: Vec<String>,
    },
}

/// The browser's URL policy (routing-table options `allowed_domains`, `blocked_domains`,
/// `allow_file_urls`, `allow_chrome_urls`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UrlPolicy {
    /// When not empty, only these hosts (and their subdomains) may be opened.
    pub allowed_domains: Vec<String>,
    /// Hosts (and their subdomains) that may never be opened; wins over `allowed_domains`.
    pub blocked_domains: Vec<String>,
    /// Allow `file://` URLs.
    pub allow_file_urls: bool,
    /// Allow `chrome://`, `chrome-extension://` and `devtools://` URLs.
    pub allow_chrome_urls: bool,
}

/// The host of `url` (lowercase, without port or credentials), if it has one.
pub fn host_of(url: &str) -> Option<String> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next()?.to_owned()
    } else {
        authority.split(':').next()?.to_owned()
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// The root name of a page (docs/design.md "root and process"): its host without port; `about`,
/// `data` or `file` for those schemes.
pub fn root_of(url: &str) -> String {
    let scheme = url
        .split_once(':')
        .map(|(s, _)| s.to_ascii_lowercase())
        .unwrap_or_default();
    match scheme.as_str() {
        "about" | "data" | "file" | "blob" => scheme,
        _ => host_of(url).unwrap_or(scheme),
    }
}

fn matches(host: &str, domain: &str) -> bool {
    let d = domain.trim().trim_start_matches("*.").to_ascii_lowercase();
    !d.is_empty() && (host == d || host.ends_with(&format!(".{d}")))
}

impl UrlPolicy {
    /// Whether any domain list is set (page-initiated navigations are then checked too).
    pub fn restricts(&self) -> bool {
        !self.allowed_domains.is_empty() || !self.blocked_domains.is_empty()
    }

    /// `Ok` when `url` may be opened, else why not (its text is for the model).
    pub fn check(&self, url: &str) -> Result<(), UrlRefused> {
        let scheme = url
            .split_once(':')
            .map(|(s, _)| s.to_ascii_lowercase())
            .unwrap_or_default();
        match scheme.as_str() {
            "http" | "https" => {}
            "about" | "data" => return Ok(()),
            "file" if self.allow_file_urls => return Ok(()),
            "file" => return Err(UrlRefused::FileUrlsOff(url.to_owned())),
            "chrome" | "chrome-extension" | "devtools" if self.allow_chrome_urls => return Ok(()),
            "chrome" | "chrome-extension" | "devtools" => {
                return Err(UrlRefused::ChromeUrlsOff(url.to_owned()));
            }
            _ => return Err(UrlRefused::BadScheme(url.to_owned())),
        }
        let host = host_of(url).ok_or_else(|| UrlRefused::BadScheme(url.to_owned()))?;
        if self.blocked_domains.iter().any(|d| matches(&host, d)) {
            return Err(UrlRefused::DomainBlocked(host));
        }
        if !self.allowed_domains.is_empty()
            && !self.allowed_domains.iter().any(|d| matches(&host, d))
        {
            return Err(UrlRefused::DomainNotAllowed {
                host,
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
}
