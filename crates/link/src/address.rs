//! Server addresses (docs/design.md "Addresses and secrets"): `--server` takes the server's base
//! URL, `http(s)://` or `ws(s)://`; the device endpoint is `/ws` when the path is empty.

/// A `--server` value that is not a usable address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{given}' is not a deft server address: {reason} (expected e.g. http://127.0.0.1:8030 or ws://host:8030/ws)"
)]
pub struct AddressError {
    /// What was given.
    pub given: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

struct Parts<'a> {
    secure: bool,
    authority: &'a str,
    path: &'a str,
}

fn split(server: &str) -> Result<Parts<'_>, AddressError> {
    let err = |reason| AddressError {
        given: server.to_owned(),
        reason,
    };
    let (scheme, rest) = server
        .split_once("://")
        .ok_or_else(|| err("it has no scheme"))?;
    let secure = match scheme.to_ascii_lowercase().as_str() {
        "http" | "ws" => false,
        "https" | "wss" => true,
        _ => return Err(err("the scheme must be http, https, ws or wss")),
    };
    let (authority, path) = match rest.find(['/', '?', '#']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if authority.is_empty() {
        return Err(err("it has no host"));
    }
    if authority.contains('@') {
        return Err(err(
            "credentials in the address are not accepted; use --token",
        ));
    }
    Ok(Parts {
        secure,
        authority,
        path,
    })
}

/// The WebSocket URL of the device endpoint: `ws(s)://host:port/ws` (the given path when it
/// is not empty).
///
/// ```
/// assert_eq!(deft_link::address::device_url("http://127.0.0.1:8030").unwrap(), "ws://127.0.0.1:8030/ws");
/// assert_eq!(deft_link::address::device_url("wss://example.org/deft/ws").unwrap(), "wss://example.org/deft/ws");
/// ```
pub fn device_url(server: &str) -> Result<String, AddressError> {
    let p = split(server.trim())?;
    let scheme = if p.secure { "wss" } else { "ws" };
    let path = if p.path.is_empty() || p.path == "/" {
        "/ws"
    } else {
        p.path
    };
    Ok(format!("{scheme}://{}{path}", p.authority))
}

/// The HTTP base URL of the API: `http(s)://host:port` plus any path prefix other than `/ws`,
/// without a trailing slash.
///
/// ```
/// assert_eq!(deft_link::address::api_base("ws://127.0.0.1:8030/ws").unwrap(), "http://127.0.0.1:8030");
/// ```
pub fn api_base(server: &str) -> Result<String, AddressError> {
    let p = split(server.trim())?;
    let scheme = if p.secure { "https" } else { "http" };
    let path = p.path.split(['?', '#']).next().unwrap_or("");
    let path = path
        .strip_suffix("/ws")
        .unwrap_or(path)
        .trim_end_matches('/');
    Ok(format!("{scheme}://{}{path}", p.authority))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_urls() {
        assert_eq!(device_url("http://h:1").unwrap(), "ws://h:1/ws");
        assert_eq!(device_url("http://h:1/").unwrap(), "ws://h:1/ws");
        assert_eq!(device_url("https://h").unwrap(), "wss://h/ws");
        assert_eq!(device_url("ws://h:1/ws").unwrap(), "ws://h:1/ws");
        assert_eq!(device_url("WS://h:1/x/ws").unwrap(), "ws://h:1/x/ws");
    }

    #[test]
    fn api_bases() {
        assert_eq!(api_base("http://h:1/").unwrap(), "http://h:1");
        assert_eq!(api_base("ws://h:1/ws").unwrap(), "http://h:1");
        assert_eq!(api_base("wss://h/p/ws").unwrap(), "https://h/p");
    }

    #[test]
    fn bad_addresses_say_why() {
        let e = device_url("127.0.0.1:8030").unwrap_err();
        assert_eq!(
            e.to_string(),
            "'127.0.0.1:8030' is not a deft server address: it has no scheme (expected e.g. http://127.0.0.1:8030 or ws://host:8030/ws)"
        );
        assert_eq!(
            device_url("ftp://h").unwrap_err().reason,
            "the scheme must be http, https, ws or wss"
        );
        assert_eq!(device_url("http://").unwrap_err().reason, "it has no host");
        assert!(device_url("http://u:p@h").is_err());
    }
}
