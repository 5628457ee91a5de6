//! The server's own time zone as an IANA name, for schedules that run at "server time" (the
//! daily experience audit at 03:47): `TZ`, else `/etc/timezone`, else the zone `/etc/localtime`
//! links to, else `UTC`. Only names chrono-tz knows count.

use std::path::Path;

use chrono_tz::Tz;

/// The server's time zone (see the module docs).
pub fn local_zone() -> String {
    let from_env = std::env::var("TZ").ok();
    let from_file = std::fs::read_to_string("/etc/timezone").ok();
    let from_link = std::fs::read_link("/etc/localtime").ok();
    pick_zone(
        from_env.as_deref(),
        from_file.as_deref(),
        from_link.as_deref(),
    )
}

/// The first usable zone among what `TZ` says (a leading `:` allowed), what `/etc/timezone`
/// holds and where `/etc/localtime` links (`…/zoneinfo/Europe/Berlin`); `UTC` when none is.
fn pick_zone(env: Option<&str>, file: Option<&str>, link: Option<&Path>) -> String {
    let linked = link.and_then(|l| {
        let text = l.to_str()?;
        let (_, zone) = text.split_once("zoneinfo/")?;
        Some(zone.to_owned())
    });
    [
        env.map(|e| e.trim().trim_start_matches(':').to_owned()),
        file.map(|f| f.trim().to_owned()),
        linked,
    ]
    .into_iter()
    .flatten()
    .find(|name| !name.is_empty() && name.parse::<Tz>().is_ok())
    .unwrap_or_else(|| "UTC".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_known_zone_wins() {
        let link = Path::new("/usr/share/zoneinfo/Asia/Shanghai");
        assert_eq!(
            pick_zone(
                Some(":Europe/Berlin"),
                Some("America/New_York\n"),
                Some(link)
            ),
            "Europe/Berlin"
        );
        assert_eq!(
            pick_zone(Some("Nowhere/Else"), Some("America/New_York\n"), Some(link)),
            "America/New_York"
        );
        assert_eq!(pick_zone(None, None, Some(link)), "Asia/Shanghai");
        assert_eq!(pick_zone(Some(""), Some("  "), None), "UTC");
        assert_eq!(pick_zone(None, None, Some(Path::new("/etc/other"))), "UTC");
    }
}
