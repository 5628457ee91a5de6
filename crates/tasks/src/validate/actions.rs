//! The parameters of the step types without sub-steps, read field by field (docs/tasks.md
//! "Step types"). Each function reads every field its type takes, so the fields it did not
//! read are the unknown ones.

use super::ctx::Ctx;
use super::fields::{Choice, Count, Fields, Flag, Number, Read, Spot, Strings, Text};
use super::selector::SelectorRead;
use crate::step::limits::*;
use crate::step::*;
use crate::texts;
use crate::vars::is_valid_name;

pub(super) const DIRECTIONS: Choice<Direction> = Choice(&[
    ("up", Direction::Up),
    ("down", Direction::Down),
    ("left", Direction::Left),
    ("right", Direction::Right),
]);

const BUTTONS: Choice<MouseButton> = Choice(&[
    ("left", MouseButton::Left),
    ("right", MouseButton::Right),
    ("middle", MouseButton::Middle),
]);

const MODES: Choice<InputMode> = Choice(&[
    ("replace", InputMode::Replace),
    ("append", InputMode::Append),
]);

const LEVELS: Choice<NotifyLevel> = Choice(&[
    ("info", NotifyLevel::Info),
    ("warning", NotifyLevel::Warning),
    ("error", NotifyLevel::Error),
]);

fn amount() -> Number {
    Number {
        min: SWIPE_AMOUNT.0,
        max: SWIPE_AMOUNT.1,
        exclusive_min: false,
        unit: "a share of the area",
    }
}

/// The action of a step type without sub-steps (`None` after reporting what is wrong).
pub(super) fn leaf(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, kind: StepType) -> Option<Action> {
    match kind {
        StepType::OpenApp => open_app(ctx, f),
        StepType::StopApp => Some(Action::StopApp(StopApp {
            app: f.req(ctx, "app", Text::nonempty())?,
        })),
        StepType::ScreenOn => Some(Action::ScreenOn),
        StepType::ScreenOff => Some(Action::ScreenOff),
        StepType::KeyEvent => key_event(ctx, f),
        StepType::Swipe => swipe(ctx, f),
        StepType::SwipeUntil => swipe_until(ctx, f),
        StepType::Click => click(ctx, f),
        StepType::LongClick => long_click(ctx, f),
        StepType::WaitEl => wait_el(ctx, f),
        StepType::InputText => input_text(ctx, f),
        StepType::Clipboard => clipboard(ctx, f),
        StepType::Wait => Some(Action::Wait(Wait {
            seconds: f.req(ctx, "seconds", Number::seconds(0.0, MAX_WAIT_S))?,
        })),
        StepType::ClickXy => click_xy(ctx, f),
        StepType::Gesture => gesture(ctx, f),
        StepType::KeepScreen => Some(Action::KeepScreen(KeepScreen {
            on: f.req(ctx, "on", Flag)?,
        })),
        StepType::Notify => notify(ctx, f),
        StepType::StopSelf => finish(ctx, f).map(Action::StopSelf),
        StepType::MarkDone => finish(ctx, f).map(Action::MarkDone),
        StepType::Loop | StepType::Group | StepType::IfEl | StepType::ForEach => None,
    }
}

fn open_app(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let app = f.opt(ctx, "app", Text::nonempty());
    let args = f.opt(ctx, "args", Strings);
    let title = f.opt(ctx, "title", Text::nonempty());
    let new_instance = f.opt(ctx, "new_instance", Flag);
    let url = f.opt(ctx, "url", Text::nonempty());
    let new_tab = f.opt(ctx, "new_tab", Flag);
    let (app, args, title, new_instance, url, new_tab) =
        (app?, args?, title?, new_instance?, url?, new_tab?);
    match (app, url) {
        (Some(app), None) => {
            if new_tab.is_some() {
                ctx.error(
                    f.at("new_tab"),
                    texts::goes_with("open_app", "new_tab", "url"),
                );
            }
            let args = args.unwrap_or_default();
            let new_instance = new_instance.unwrap_or(false);
            if title.is_some() && (new_instance || !args.is_empty()) {
                ctx.error(f.at("title"), texts::OPEN_APP_TITLE_CONFLICT);
            }
            Some(Action::OpenApp(OpenApp::App {
                app,
                args,
                title,
                new_instance,
            }))
        }
        (None, Some(url)) => {
            for (field, given) in [
                ("args", args.is_some()),
                ("title", title.is_some()),
                ("new_instance", new_instance.is_some()),
            ] {
                if given {
                    ctx.error(f.at(field), texts::goes_with("open_app", field, "app"));
                }
            }
            Some(Action::OpenApp(OpenApp::Url {
                url,
                new_tab: new_tab.unwrap_or(false),
            }))
        }
        (None, None) => {
            ctx.error(f.path(), texts::OPEN_APP_NEEDS_ONE);
            None
        }
        (Some(_), Some(_)) => {
            ctx.error(f.path(), texts::OPEN_APP_BOTH);
            None
        }
    }
}

fn key_event(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let keys = f.req(ctx, "keys", Text::nonempty());
    let selector = f.opt(ctx, "selector", SelectorRead);
    Some(Action::KeyEvent(KeyEvent {
        keys: keys?,
        selector: selector?,
    }))
}

fn swipe(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let direction = f.req(ctx, "direction", DIRECTIONS);
    let amount = f.or(ctx, "amount", amount(), DEFAULT_SWIPE_AMOUNT);
    let area = f.opt(ctx, "area", SelectorRead);
    Some(Action::Swipe(Swipe {
        direction: direction?,
        amount: amount?,
        area: area?,
    }))
}

fn swipe_until(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let selector = f.req(ctx, "selector", SelectorRead);
    let direction = f.req(ctx, "direction", DIRECTIONS);
    let amount = f.or(ctx, "amount", amount(), DEFAULT_SWIPE_AMOUNT);
    let max_swipes = f.or(
        ctx,
        "max_swipes",
        Count {
            min: 1,
            max: MAX_SWIPES,
        },
        DEFAULT_SWIPES,
    );
    let area = f.opt(ctx, "area", SelectorRead);
    Some(Action::SwipeUntil(SwipeUntil {
        selector: selector?,
        direction: direction?,
        amount: amount?,
        max_swipes: max_swipes?,
        area: area?,
    }))
}

fn click(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let selector = f.req(ctx, "selector", SelectorRead);
    let button = f.or(ctx, "button", BUTTONS, MouseButton::Left);
    let double = f.or(ctx, "double", Flag, false);
    Some(Action::Click(Click {
        selector: selector?,
        button: button?,
        double: double?,
    }))
}

fn long_click(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let selector = f.req(ctx, "selector", SelectorRead);
    let duration = f.or(
        ctx,
        "duration_s",
        Number::seconds(LONG_CLICK_S.0, LONG_CLICK_S.1),
        DEFAULT_LONG_CLICK_S,
    );
    Some(Action::LongClick(LongClick {
        selector: selector?,
        duration_s: duration?,
    }))
}

fn wait_el(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let selector = f.req(ctx, "selector", SelectorRead);
    let gone = f.or(ctx, "gone", Flag, false);
    Some(Action::WaitEl(WaitEl {
        selector: selector?,
        gone: gone?,
    }))
}

fn input_text(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let selector = f.req(ctx, "selector", SelectorRead);
    let text = f.req(ctx, "text", Text::any());
    let mode = f.or(ctx, "mode", MODES, InputMode::Replace);
    Some(Action::InputText(InputText {
        selector: selector?,
        text: text?,
        mode: mode?,
    }))
}

/// A variable name (for `read_into`, `for_each`'s `variable` and `as`).
pub(super) struct VarName;

impl Read for VarName {
    type Out = String;
    fn what(&self) -> String {
        "a variable name such as \"order_id\"".to_owned()
    }
    fn read(&self, ctx: &mut Ctx<'_>, v: &serde_json::Value, at: &Spot<'_>) -> Option<String> {
        let Some(s) = v.as_str() else {
            at.wrong(ctx, &self.what(), v);
            return None;
        };
        if !is_valid_name(s) || s.chars().count() > MAX_VARIABLE_NAME_CHARS {
            ctx.error(at.path.clone(), texts::bad_variable_name(s));
            return None;
        }
        Some(s.to_owned())
    }
}

fn clipboard(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let set = f.opt(ctx, "set", Text::any());
    let read = f.opt(ctx, "read_into", VarName);
    match (set?, read?) {
        (Some(text), None) => Some(Action::Clipboard(Clipboard::Set { text })),
        (None, Some(into)) => Some(Action::Clipboard(Clipboard::Read { into })),
        (None, None) => {
            ctx.error(f.path(), texts::CLIPBOARD_NEEDS_ONE);
            None
        }
        (Some(_), Some(_)) => {
            ctx.error(f.path(), texts::CLIPBOARD_BOTH);
            None
        }
    }
}

fn click_xy(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let x = f.req(
        ctx,
        "x",
        Number::fraction("a fraction of the window's width"),
    );
    let y = f.req(
        ctx,
        "y",
        Number::fraction("a fraction of the window's height"),
    );
    let button = f.or(ctx, "button", BUTTONS, MouseButton::Left);
    let double = f.or(ctx, "double", Flag, false);
    Some(Action::ClickXy(ClickXy {
        x: x?,
        y: y?,
        button: button?,
        double: double?,
    }))
}

/// A gesture's points: 2–50 objects `{x, y}`.
struct Points;

impl Read for Points {
    type Out = Vec<Point>;
    fn what(&self) -> String {
        format!(
            "a list of 2 to {MAX_GESTURE_POINTS} points such as [{{\"x\": 0.5, \"y\": 0.8}}, {{\"x\": 0.5, \"y\": 0.2}}]"
        )
    }
    fn read(&self, ctx: &mut Ctx<'_>, v: &serde_json::Value, at: &Spot<'_>) -> Option<Vec<Point>> {
        let items = v
            .as_array()
            .filter(|a| (2..=MAX_GESTURE_POINTS).contains(&a.len()));
        let Some(items) = items else {
            at.wrong(ctx, &self.what(), v);
            return None;
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("{}[{i}]", at.path);
            let Some(obj) = item.as_object() else {
                let spot = Spot {
                    path,
                    owner: at.owner,
                    field: "point",
                };
                spot.wrong(ctx, "an object such as {\"x\": 0.5, \"y\": 0.8}", item);
                continue;
            };
            let mut p = Fields::new(obj, &path, "the point");
            let x = p.req(
                ctx,
                "x",
                Number::fraction("a fraction of the window's width"),
            );
            let y = p.req(
                ctx,
                "y",
                Number::fraction("a fraction of the window's height"),
            );
            p.refuse_unknown(ctx, &[], &|_| None);
            if let (Some(x), Some(y)) = (x, y) {
                out.push(Point { x, y });
            }
        }
        Some(out)
    }
}

fn gesture(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let points = f.req(ctx, "points", Points);
    let duration = f.or(
        ctx,
        "duration_s",
        Number::seconds(GESTURE_S.0, GESTURE_S.1),
        DEFAULT_GESTURE_S,
    );
    Some(Action::Gesture(Gesture {
        points: points?,
        duration_s: duration?,
    }))
}

fn notify(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Action> {
    let message = f.req(ctx, "message", Text::nonempty());
    let level = f.or(ctx, "level", LEVELS, NotifyLevel::Info);
    Some(Action::Notify(Notify {
        message: message?,
        level: level?,
    }))
}

fn finish(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Finish> {
    Some(Finish {
        message: f.opt(ctx, "message", Text::any())?,
    })
}
