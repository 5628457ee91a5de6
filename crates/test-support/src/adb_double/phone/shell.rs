//! The shell commands the simulated phone answers as an Android 14 phone prints them:
//! `getprop`, `wm size`, `dumpsys window|power`, `pm list packages|path|install`, `monkey`,
//! `am start|force-stop|broadcast`, `cmd package resolve-activity`, `svc power stayon`,
//! `settings get|put`, `ime`, the clipboard helper through `app_process`.

use super::{AppInfo, Phone, out};
use crate::adb_double::config::Reply;

/// A short hexadecimal hash of `text`, as window and activity records print (stable here).
fn hash(text: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    format!("{:x}", h & 0x0fff_ffff)
}

/// `pkg/.Act` when the class is in the package (`ComponentName.flattenToShortString`).
fn short_component(package: &str, class: &str) -> String {
    match class.strip_prefix(package) {
        Some(rest) if rest.starts_with('.') => format!("{package}/{rest}"),
        _ => format!("{package}/{class}"),
    }
}

/// Whether `name` can be a package name.
fn package_like(name: &str) -> bool {
    name.contains('.')
        && name.split('.').all(|part| {
            !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

impl Phone {
    /// Answers `words` when the phone has the command; `None` for the double's built-ins.
    pub(crate) fn shell(
        &mut self,
        words: &[&str],
        files: &std::collections::HashMap<String, Vec<u8>>,
    ) -> Option<Reply> {
        Some(match words {
            ["getprop", key] => out(format!("{}\n", self.property(key).unwrap_or_default())),
            ["wm", "size"] => {
                let (w, h) = self.config.size;
                out(format!("Physical size: {w}x{h}\n"))
            }
            ["wm", "density"] => out("Physical density: 420\n"),
            ["dumpsys", "window", rest @ ..] => self.dumpsys_window(rest.first().copied()),
            ["dumpsys", "power"] => self.dumpsys_power(),
            ["pm", "list", "packages", rest @ ..] => self.list_packages(rest),
            ["pm", "path", package] => match self.app(package) {
                Some(app) => out(format!("package:{}\n", app.path)),
                None => Reply::failure("", 1),
            },
            ["pm", "install", rest @ ..] => self.install(rest, files),
            ["monkey", rest @ ..] => self.monkey(rest),
            ["am", "start", rest @ ..] => self.start(rest),
            ["am", "force-stop", package] => {
                self.force_stop(package);
                Reply::default()
            }
            ["am", "broadcast", rest @ ..] => self.broadcast(rest),
            ["cmd", "package", "resolve-activity", rest @ ..] => self.resolve(rest),
            ["svc", "power", "stayon", mode] => self.stay_awake(mode),
            ["settings", "get", namespace, key] => out(format!(
                "{}\n",
                self.setting(namespace, key).unwrap_or("null".into())
            )),
            [
                "settings",
                "put",
                "global",
                "stay_on_while_plugged_in",
                value,
            ] => {
                self.stay_on = value.parse().unwrap_or(0);
                Reply::default()
            }
            ["ime", rest @ ..] => self.ime.command(rest),
            [env, "app_process", "/", class, rest @ ..] if env.starts_with("CLASSPATH=") => {
                self.app_process(&env["CLASSPATH=".len()..], class, rest, files)
            }
            _ => return None,
        })
    }

    fn property(&self, key: &str) -> Option<String> {
        Some(match key {
            "ro.product.model" => self.model.clone(),
            "ro.product.manufacturer" => "Google".into(),
            "ro.build.version.release" => self.config.release.clone(),
            "ro.build.version.sdk" => self.config.sdk.to_string(),
            "ro.build.characteristics" => "nosdcard".into(),
            _ => return None,
        })
    }

    fn setting(&self, namespace: &str, key: &str) -> Option<String> {
        match (namespace, key) {
            ("global", "stay_on_while_plugged_in") => Some(self.stay_on.to_string()),
            ("secure", key) => self.ime.setting(key),
            _ => None,
        }
    }

    /// The two focus lines of `dumpsys window`.
    fn focus_lines(&self) -> String {
        let (package, activity, dialog) = self.focus();
        let full = match activity.strip_prefix('.') {
            Some(_) => format!("{package}{activity}"),
            None => activity.clone(),
        };
        let task = 10
            + self
                .apps
                .iter()
                .position(|a| a.package == package)
                .unwrap_or(0);
        let window = dialog.unwrap_or_else(|| format!("{package}/{full}"));
        format!(
            "  mCurrentFocus=Window{{{} u0 {window}}}\n  mFocusedApp=ActivityRecord{{{} u0 {} t{task}}}\n",
            hash(&window),
            hash(&package),
            short_component(&package, &full),
        )
    }

    /// `dumpsys window displays` (Android 10+) or `windows`: the display, then the focus.
    fn dumpsys_window(&self, section: Option<&str>) -> Reply {
        let (w, h) = self.config.size;
        let head = match section {
            Some("windows") => "WINDOW MANAGER WINDOWS (dumpsys window windows)\n".to_owned(),
            _ => format!(
                "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n  Display: mDisplayId=0 rootTasks=2\n    init={w}x{h} 420dpi base={w}x{h} 420dpi cur={w}x{h} app={w}x{h} rng={w}x{w}-{h}x{h}\n    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{w},{h}))\n\n"
            ),
        };
        out(format!("{head}{}", self.focus_lines()))
    }

    fn dumpsys_power(&self) -> Reply {
        let (wakefulness, display) = if self.awake {
            ("Awake", "ON")
        } else {
            ("Asleep", "OFF")
        };
        out(format!(
            "POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n  mWakefulness={wakefulness}\n  mWakefulnessChanging=false\n  mIsPowered=true\n  mPlugType=2\n  mStayOn={}\n  mHoldingDisplaySuspendBlocker={}\n\nSettings and Configuration:\n  mStayOnWhilePluggedInSetting={}\n\nDisplay Power: state={display}\n",
            self.stay_on & 2 != 0,
            self.awake,
            self.stay_on,
        ))
    }

    /// `pm list packages [OPTIONS] [FILTER]`.
    fn list_packages(&self, args: &[&str]) -> Reply {
        let filter = args
            .iter()
            .find(|a| !a.starts_with('-'))
            .copied()
            .unwrap_or("");
        out(self
            .apps
            .iter()
            .filter(|a| a.package.contains(filter))
            .map(|a| format!("package:{}\n", a.package))
            .collect::<String>())
    }

    /// `monkey -p PKG -c android.intent.category.LAUNCHER 1`: the app's launcher activity.
    fn monkey(&mut self, args: &[&str]) -> Reply {
        let echo: String = args.iter().map(|a| format!("  bash arg: {a}\n")).collect();
        let package = args
            .iter()
            .position(|a| *a == "-p")
            .and_then(|i| args.get(i + 1))
            .copied()
            .unwrap_or("");
        if !self.launch(package) {
            return Reply {
                stdout: format!("{echo}** No activities found to run, monkey aborted.\n").into(),
                stderr: Vec::new(),
                exit: 252,
            };
        }
        out(format!(
            "{echo}Events injected: 1\n## Network stats: elapsed time=8ms (0ms mobile, 0ms wifi, 8ms not connected)\n"
        ))
    }

    /// `am start [-W] -n PKG/ACTIVITY`, or `am start -a android.intent.action.VIEW -d URL`.
    fn start(&mut self, args: &[&str]) -> Reply {
        let flag = |name: &str| {
            args.iter()
                .position(|a| *a == name)
                .and_then(|i| args.get(i + 1))
                .copied()
        };
        if let (None, Some(url)) = (flag("-n"), flag("-d")) {
            return self.start_view(flag("-a").unwrap_or(""), url);
        }
        let Some(component) = args
            .iter()
            .position(|a| *a == "-n")
            .and_then(|i| args.get(i + 1))
        else {
            return out(
                "Starting: Intent { }\nError: Activity not started, unable to resolve Intent { flg=0x10000000 }\n",
            );
        };
        let (package, class) = component.split_once('/').unwrap_or((component, ""));
        let full = match class.strip_prefix('.') {
            Some(_) => format!("{package}{class}"),
            None => class.to_owned(),
        };
        let starting = format!("Starting: Intent {{ cmp={component} }}\n");
        let known = self
            .app(package)
            .and_then(AppInfo::full_activity)
            .is_some_and(|a| a == full);
        if !known {
            return out(format!(
                "{starting}Error type 3\nError: Activity class {{{}}} does not exist.\n",
                short_component(package, &full)
            ));
        }
        let in_front = self.foreground() == package;
        self.launch(package);
        let warning = if in_front {
            "Warning: Activity not started, its current task has been brought to the front\n"
        } else {
            ""
        };
        out(format!("{starting}{warning}"))
    }

    /// `am start -a ACTION -d URL`: a VIEW of an http(s) link opens the browser; anything else
    /// resolves to no activity, as on a phone without an app for it.
    fn start_view(&mut self, action: &str, url: &str) -> Reply {
        let intent = format!("act={action} dat={url}");
        let starting = format!("Starting: Intent {{ {intent} }}\n");
        if action == "android.intent.action.VIEW" && self.view_url(url) {
            return out(starting);
        }
        out(format!(
            "{starting}Error: Activity not started, unable to resolve Intent {{ {intent} flg=0x10000000 }}\n"
        ))
    }

    /// `cmd package resolve-activity --brief [-c CATEGORY] PKG`.
    fn resolve(&self, args: &[&str]) -> Reply {
        let mut package = None;
        let mut i = 0;
        while i < args.len() {
            match args[i] {
                "-c" | "-a" | "--user" => i += 2,
                flag if flag.starts_with('-') => i += 1,
                name => {
                    package = Some(name);
                    i += 1;
                }
            }
        }
        let info = package.and_then(|p| self.app(p));
        match info.and_then(|a| a.activity.as_ref().map(|act| (a, act))) {
            Some((app, activity)) => out(format!(
                "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n{}/{activity}\n",
                app.package
            )),
            None => out("No activity found\n"),
        }
    }

    /// `svc power stayon true|false|usb|ac|wireless`.
    fn stay_awake(&mut self, mode: &str) -> Reply {
        self.stay_on = match mode {
            "true" => 7,
            "false" => 0,
            "ac" => 1,
            "usb" => 2,
            "wireless" => 4,
            _ => {
                return Reply::failure(
                    "Control the power manager\n\nusage: svc power stayon [true|false|usb|ac|wireless]\n         Set the 'keep awake while plugged in' setting.\n",
                    1,
                );
            }
        };
        Reply::default()
    }

    /// `pm install [-r] [-t] … PATH` of a file pushed to the phone: an APK (a zip) installs
    /// the package its file is named after (`com.example.app.apk`; else
    /// `com.example.installed`).
    fn install(
        &mut self,
        args: &[&str],
        files: &std::collections::HashMap<String, Vec<u8>>,
    ) -> Reply {
        let Some(path) = args.last().filter(|a| !a.starts_with('-')) else {
            return Reply::failure("Error: no package specified\n", 255);
        };
        let Some(bytes) = files.get(*path) else {
            return Reply::failure(
                format!(
                    "Exception occurred while executing 'install':\njava.lang.IllegalArgumentException: Error: Can't open file: {path}\n"
                ),
                255,
            );
        };
        if !bytes.starts_with(b"PK\x03\x04") {
            return Reply {
                stdout: "Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/app/vmdl1329407.tmp/base.apk: Failed to load asset path /data/app/vmdl1329407.tmp/base.apk]\n".into(),
                stderr: Vec::new(),
                exit: 1,
            };
        }
        let stem = path
            .rsplit('/')
            .next()
            .unwrap_or(path)
            .trim_end_matches(".apk");
        let package = if package_like(stem) {
            stem
        } else {
            "com.example.installed"
        };
        if self.app(package).is_some() && !args.contains(&"-r") {
            return Reply {
                stdout: format!("Failure [INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install {package} without first uninstalling.]\n").into(),
                stderr: Vec::new(),
                exit: 1,
            };
        }
        self.running.remove(package);
        self.apps.retain(|a| a.package != package);
        let path = format!(
            "/data/app/~~{}==/{package}-{}==/base.apk",
            hash(package),
            hash(stem)
        );
        self.apps
            .push(AppInfo::new(package, package, Some(".MainActivity"), &path));
        self.refresh_launcher();
        out("Success\n")
    }
}
