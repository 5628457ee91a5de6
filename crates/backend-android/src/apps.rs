//! Which app a person means. Over adb a phone names its apps by package
//! (`com.android.settings`); people name them by label ("Settings", "计算器"), and adb has no
//! command that prints labels. So a name is resolved in this order, and the answer says which
//! way it was found: an installed package as given; a well-known label whose usual packages
//! (AOSP's and the big vendors') include an installed one; a word of an installed package
//! (`calculator` in `com.google.android.calculator`); and, when none of those fits, the icon of
//! that name on the home screen (the server taps it, as a person would).

/// How a name became a package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoundBy {
    /// It was an installed package.
    Package,
    /// A well-known label.
    KnownLabel,
    /// A word of the package's name.
    PackageName,
    /// An icon of that name on the home screen.
    HomeScreen,
    /// A link (`https://…`, `myapp://…`), opened by the app that handles it.
    Link,
}

impl FoundBy {
    /// Its name in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            FoundBy::Package => "package",
            FoundBy::KnownLabel => "known label",
            FoundBy::PackageName => "package name",
            FoundBy::HomeScreen => "home screen icon",
            FoundBy::Link => "link",
        }
    }
}

/// Whether `name` is a link an app opens (`scheme://…`: a web page, a deep link) rather
/// than an app's name.
pub fn is_link(name: &str) -> bool {
    let Some((scheme, rest)) = name.trim().split_once("://") else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        && !rest.is_empty()
}

/// What a name resolves to among the installed packages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// One package.
    App(String, FoundBy),
    /// Several packages fit equally.
    Ambiguous(Vec<String>),
    /// Nothing installed fits (the home screen is the last place to look).
    Unknown,
}

/// Well-known labels (lowercase, English and Chinese) and the packages phones ship them as.
const KNOWN: &[(&[&str], &[&str])] = &[
    (
        &["settings", "设置"],
        &["com.android.settings", "com.miui.securitycenter"],
    ),
    (
        &["calculator", "计算器"],
        &[
            "com.android.calculator2",
            "com.google.android.calculator",
            "com.miui.calculator",
            "com.sec.android.app.popupcalculator",
            "com.huawei.calculator",
        ],
    ),
    (
        &["chrome", "browser", "浏览器"],
        &[
            "com.android.chrome",
            "com.android.browser",
            "com.huawei.browser",
        ],
    ),
    (
        &["camera", "相机"],
        &[
            "com.android.camera2",
            "com.android.camera",
            "com.google.android.GoogleCamera",
            "com.huawei.camera",
        ],
    ),
    (
        &["contacts", "联系人", "通讯录"],
        &["com.android.contacts", "com.google.android.contacts"],
    ),
    (
        &["phone", "dialer", "电话", "拨号"],
        &["com.android.dialer", "com.google.android.dialer"],
    ),
    (
        &["messages", "messaging", "sms", "短信", "信息"],
        &[
            "com.google.android.apps.messaging",
            "com.android.mms",
            "com.android.messaging",
        ],
    ),
    (
        &["clock", "alarm", "时钟", "闹钟"],
        &["com.google.android.deskclock", "com.android.deskclock"],
    ),
    (
        &["calendar", "日历"],
        &["com.google.android.calendar", "com.android.calendar"],
    ),
    (
        &["files", "文件管理", "文件"],
        &[
            "com.google.android.apps.nbu.files",
            "com.android.documentsui",
            "com.android.fileexplorer",
        ],
    ),
    (
        &["photos", "gallery", "相册", "图库"],
        &[
            "com.google.android.apps.photos",
            "com.android.gallery3d",
            "com.miui.gallery",
        ],
    ),
    (&["play store", "google play"], &["com.android.vending"]),
    (&["gmail"], &["com.google.android.gm"]),
    (&["maps", "google maps"], &["com.google.android.apps.maps"]),
    (&["youtube"], &["com.google.android.youtube"]),
    (&["微信", "wechat"], &["com.tencent.mm"]),
    (&["支付宝", "alipay"], &["com.eg.android.AlipayGphone"]),
    (&["抖音", "douyin"], &["com.ss.android.ugc.aweme"]),
    (&["淘宝", "taobao"], &["com.taobao.taobao"]),
];

/// Resolves `name` (a package or a label) among `installed` packages.
pub fn resolve(name: &str, installed: &[String]) -> Resolved {
    let name = name.trim();
    if installed.iter().any(|p| p == name) {
        return Resolved::App(name.to_owned(), FoundBy::Package);
    }
    let label = name.to_lowercase();
    if let Some((_, packages)) = KNOWN
        .iter()
        .find(|(labels, _)| labels.contains(&label.as_str()))
    {
        // The phone's own first: the list is ordered by how common each package is.
        if let Some(p) = packages.iter().find(|p| installed.iter().any(|i| i == *p)) {
            return Resolved::App((*p).to_owned(), FoundBy::KnownLabel);
        }
    }
    let word: String = label.chars().filter(|c| !c.is_whitespace()).collect();
    if word.len() < 3 || !word.is_ascii() {
        return Resolved::Unknown;
    }
    let fits: Vec<String> = installed
        .iter()
        .filter(|p| {
            p.to_lowercase().split('.').skip(1).any(|segment| {
                segment == word || segment.trim_end_matches(char::is_numeric) == word
            })
        })
        .cloned()
        .collect();
    match fits.len() {
        0 => Resolved::Unknown,
        1 => Resolved::App(fits[0].clone(), FoundBy::PackageName),
        _ => Resolved::Ambiguous(fits),
    }
}

/// Words of package names too common to say two packages are alike.
const COMMON_WORDS: &[&str] = &["com", "org", "net", "android", "google", "app", "apps"];

/// Installed packages whose name holds a word of `name` (for the "look close" hint).
pub fn close_to(name: &str, installed: &[String]) -> Vec<String> {
    let words: Vec<String> = name
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 3 && !COMMON_WORDS.contains(w))
        .map(str::to_owned)
        .collect();
    installed
        .iter()
        .filter(|p| {
            let p = p.to_lowercase();
            words.iter().any(|w| p.contains(w.as_str()))
        })
        .take(5)
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_told_from_app_names() {
        for link in [
            "https://example.org/a?b=1",
            "http://127.0.0.1:8080/",
            "myapp://order/42",
            "market://details?id=x",
        ] {
            assert!(is_link(link), "{link}");
        }
        for name in [
            "Settings",
            "com.android.settings",
            "计算器",
            "://x",
            "1ab://x",
            "https://",
            "a b://c",
        ] {
            assert!(!is_link(name), "{name}");
        }
    }

    fn installed() -> Vec<String> {
        [
            "com.android.settings",
            "com.google.android.calculator",
            "com.android.calculator2",
            "com.example.notes",
            "com.example.notes.backup",
            "com.tencent.mm",
        ]
        .map(str::to_owned)
        .to_vec()
    }

    #[test]
    fn packages_labels_and_package_words_resolve_in_that_order() {
        let i = installed();
        assert_eq!(
            resolve("com.example.notes", &i),
            Resolved::App("com.example.notes".into(), FoundBy::Package)
        );
        assert_eq!(
            resolve(" Calculator ", &i),
            Resolved::App("com.android.calculator2".into(), FoundBy::KnownLabel)
        );
        assert_eq!(
            resolve("设置", &i),
            Resolved::App("com.android.settings".into(), FoundBy::KnownLabel)
        );
        assert_eq!(
            resolve("微信", &i),
            Resolved::App("com.tencent.mm".into(), FoundBy::KnownLabel)
        );
        assert_eq!(
            resolve("Notes", &i),
            Resolved::Ambiguous(vec![
                "com.example.notes".into(),
                "com.example.notes.backup".into()
            ])
        );
        assert_eq!(resolve("Weather", &i), Resolved::Unknown);
        assert_eq!(resolve("记事本", &i), Resolved::Unknown);
        assert_eq!(close_to("my notes", &i).len(), 2);
    }
}
