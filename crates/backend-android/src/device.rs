//! What a phone says about itself: its screen size (`wm size`), whether its screen is on
//! (`dumpsys power`), and the packages it has (`pm list packages`).

/// The screen size `wm size` prints: the override when one is set, else the physical size.
pub fn parse_screen_size(said: &str) -> Option<(u32, u32)> {
    let size_of = |prefix: &str| {
        said.lines().find_map(|l| {
            let (w, h) = l.trim().strip_prefix(prefix)?.trim().split_once('x')?;
            Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
        })
    };
    size_of("Override size:").or_else(|| size_of("Physical size:"))
}

/// Whether the screen is on, from `dumpsys power`: `Display Power: state=ON`, else
/// `mWakefulness=Awake`, else (old builds) `mScreenOn=true`. `None` when it says none of them.
pub fn parse_screen_on(said: &str) -> Option<bool> {
    let value = |key: &str| {
        said.lines()
            .find_map(|l| l.trim().strip_prefix(key).map(|v| v.trim().to_owned()))
    };
    if let Some(state) = value("Display Power: state=") {
        return Some(state.eq_ignore_ascii_case("ON"));
    }
    if let Some(w) = value("mWakefulness=").or_else(|| value("getWakefulnessLocked()=")) {
        return Some(w.eq_ignore_ascii_case("Awake"));
    }
    value("mScreenOn=").map(|v| v == "true")
}

/// The packages `pm list packages` prints (`package:com.android.settings` per line; `\r\n` on
/// PTY shells).
pub fn parse_packages(said: &str) -> Vec<String> {
    said.lines()
        .filter_map(|l| l.trim_end_matches('\r').trim().strip_prefix("package:"))
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_override_size_wins() {
        assert_eq!(
            parse_screen_size("Physical size: 1080x2400\n"),
            Some((1080, 2400))
        );
        assert_eq!(
            parse_screen_size("Physical size: 1080x2400\nOverride size: 720x1600\n"),
            Some((720, 1600))
        );
        assert_eq!(parse_screen_size("error: no display"), None);
    }

    #[test]
    fn screen_power_is_read_from_any_build() {
        assert_eq!(
            parse_screen_on("  Display Power: state=OFF\n  mWakefulness=Awake"),
            Some(false)
        );
        assert_eq!(parse_screen_on("  mWakefulness=Dozing\n"), Some(false));
        assert_eq!(parse_screen_on("getWakefulnessLocked()=Awake"), Some(true));
        assert_eq!(parse_screen_on("mScreenOn=true"), Some(true));
        assert_eq!(parse_screen_on("nothing here"), None);
    }

    #[test]
    fn packages_are_listed_whatever_the_line_ends() {
        assert_eq!(
            parse_packages("package:com.android.settings\r\npackage:com.miui.home\n\nnoise\n"),
            vec!["com.android.settings", "com.miui.home"]
        );
    }
}
