//! What each leaf step does on the device, as tool calls: the mapping of the step language onto
//! the tools both device backends share (docs/tasks.md "Step types" says the same per type).
//! Controls are located with `find_controls`, then acted on by id.

use std::time::Duration;

use deft_protocol::ToolType;
use deft_protocol::found::waited_control;
use serde_json::{Value, json};

use super::driver::Driver;
use super::exec::Exec;
use super::outcome::{Done, Located, StepError};
use super::texts;
use crate::step::{
    Action, Click, ClickXy, Clipboard, Direction, Gesture, InputMode, InputText, KeyEvent,
    LongClick, OpenApp, Step, StopApp, Swipe, SwipeUntil, WaitEl,
};

/// The routing-table profile of phones (their tools: `set_screen`, `keep_awake`, `swipe`).
const PHONE_PROFILE: &str = "android";

/// Wheel notches per whole area a swipe moves (`amount` 1.0); a notch is about three lines.
const NOTCHES_PER_AREA: f64 = 10.0;

impl Exec<'_> {
    /// Plays one leaf step (variables already expanded).
    pub(crate) async fn act(&mut self, action: &Action, step: &Step) -> Result<Done, StepError> {
        match action {
            Action::OpenApp(o) => self.d.open_app(o).await,
            Action::StopApp(s) => self.d.stop_app(s).await,
            Action::KeyEvent(k) => self.d.key_event(k).await,
            Action::Swipe(s) => self.d.swipe(s).await,
            Action::SwipeUntil(s) => self.d.swipe_until(s).await,
            Action::Click(c) => self.d.click(c).await,
            Action::LongClick(c) => self.d.long_click(c).await,
            Action::WaitEl(w) => self.d.wait_el(w, step.timeout_s).await,
            Action::InputText(i) => self.d.input_text(i).await,
            Action::Wait(w) => {
                tokio::time::sleep(Duration::from_secs_f64(w.seconds)).await;
                Ok(Done::default())
            }
            Action::ClickXy(c) => self.d.click_xy(c).await,
            Action::Gesture(g) => self.d.gesture(g).await,
            Action::Notify(n) => Ok(Done::message(format!(
                "{}: {}",
                n.level.as_str(),
                n.message
            ))),
            Action::MarkDone(f) | Action::StopSelf(f) => {
                Ok(Done::message(f.message.clone().unwrap_or_default()))
            }
            Action::Clipboard(c) => self.clipboard(c).await,
            Action::ScreenOn | Action::ScreenOff | Action::KeepScreen(_) => {
                self.d.screen(action).await
            }
            Action::Group(_) | Action::Loop(_) | Action::IfEl(_) | Action::ForEach(_) => {
                unreachable_container(action)
            }
        }
    }
}

impl Exec<'_> {
    /// `clipboard`: `set_clipboard`, or `get_clipboard` into the variable `read_into` names
    /// (the steps after it read `{{name}}`).
    async fn clipboard(&mut self, c: &Clipboard) -> Result<Done, StepError> {
        match c {
            Clipboard::Set { text } => {
                self.d.act("set_clipboard", json!({"text": text})).await?;
                Ok(Done::message(texts::clipboard_set(text.chars().count())))
            }
            Clipboard::Read { into } => {
                let answer = self.d.observe("get_clipboard", json!({})).await?;
                let Some(text) = answer["text"].as_str() else {
                    return Err(StepError(texts::clipboard_answer_unreadable(&answer)));
                };
                self.vars.set(into.clone(), text);
                Ok(Done::message(texts::clipboard_read(
                    into,
                    text.chars().count(),
                )))
            }
        }
    }
}

fn unreachable_container(action: &Action) -> Result<Done, StepError> {
    Err(StepError(texts::container_as_leaf(
        action.step_type().as_str(),
    )))
}

impl Driver<'_> {
    async fn open_app(&mut self, o: &OpenApp) -> Result<Done, StepError> {
        match o {
            OpenApp::App {
                app,
                args,
                title,
                new_instance,
            } => {
                let mut call = json!({"app": app, "args": args});
                if let Some(t) = title {
                    call["title"] = json!(t);
                }
                if *new_instance {
                    call["new_instance"] = json!(true);
                }
                self.launch(call, app).await
            }
            // a phone opens a link in the app that handles it (its browser, or the app of a
            // deep link), as its launch_app does
            OpenApp::Url { url, .. } if self.has_screen_power() => {
                self.launch(json!({"app": url}), url).await
            }
            OpenApp::Url { url, new_tab } => {
                if *new_tab || !self.has_app() {
                    self.must(ToolType::Action, "new_tab", json!({"url": url}), false)
                        .await?;
                } else {
                    self.act("navigate", json!({"url": url})).await?;
                }
                Ok(Done::default())
            }
        }
    }

    /// `launch_app` with `call`, then its window selected.
    async fn launch(&mut self, call: Value, app: &str) -> Result<Done, StepError> {
        let launched = self
            .must(ToolType::Action, "launch_app", call, false)
            .await?;
        let Some(id) = launched.pointer("/window/id").and_then(Value::as_str) else {
            return Err(StepError(texts::launched_without_window(app)));
        };
        let id = id.to_owned();
        self.must(
            ToolType::Action,
            "select_application_window",
            json!({"id": id}),
            false,
        )
        .await?;
        Ok(Done::message(texts::opened_window(
            app,
            &id,
            launched["window"]["name"].as_str(),
            launched["found_by"].as_str(),
        )))
    }

    /// `close_app` on a desktop (its windows, then its processes); in the browser, which has no
    /// processes per app, `close_tab` on every tab whose app (the page's host) is `app`.
    async fn stop_app(&mut self, s: &StopApp) -> Result<Done, StepError> {
        if self.profile() == deft_tools::devices::BROWSER {
            return self.close_tabs(&s.app).await;
        }
        let answer = self
            .must(ToolType::Action, "close_app", json!({"app": s.app}), false)
            .await?;
        self.forget_app();
        Ok(Done::message(
            answer["message"]
                .as_str()
                .map_or_else(|| answer.to_string(), str::to_owned),
        ))
    }

    async fn close_tabs(&mut self, app: &str) -> Result<Done, StepError> {
        let listed = self
            .must(
                ToolType::DataCollection,
                "get_desktop_app_info",
                json!({"remove_empty": false}),
                false,
            )
            .await?;
        let tabs: Vec<String> = listed["windows"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|w| w["app"].as_str() == Some(app))
            .filter_map(|w| w["id"].as_str().map(str::to_owned))
            .collect();
        if tabs.is_empty() {
            return Err(StepError(texts::no_tab_of(app, self.device_id())));
        }
        for id in &tabs {
            self.must(ToolType::Action, "close_tab", json!({"id": id}), false)
                .await?;
        }
        self.forget_app();
        Ok(Done::message(texts::closed_tabs(app, tabs.len())))
    }

    async fn click(&mut self, c: &Click) -> Result<Done, StepError> {
        let l = self.locate(&c.selector).await?;
        self.act(
            "click_input",
            json!({"id": l.control.id, "name": l.control.name, "button": c.button.as_str(), "double": c.double}),
        )
        .await?;
        Ok(Done::located(l))
    }

    /// A press held `duration_s` at the control's centre (`click_input`'s `hold_s`).
    async fn long_click(&mut self, c: &LongClick) -> Result<Done, StepError> {
        let l = self.locate(&c.selector).await?;
        self.act(
            "click_input",
            json!({"id": l.control.id, "name": l.control.name, "hold_s": c.duration_s}),
        )
        .await?;
        Ok(Done::located(l))
    }

    async fn input_text(&mut self, i: &InputText) -> Result<Done, StepError> {
        let l = self.locate(&i.selector).await?;
        self.act(
            "set_edit_text",
            json!({
                "id": l.control.id,
                "name": l.control.name,
                "text": i.text,
                "clear_current_text": i.mode == InputMode::Replace,
            }),
        )
        .await?;
        Ok(Done::located(l))
    }

    async fn key_event(&mut self, k: &KeyEvent) -> Result<Done, StepError> {
        let (args, located) = match &k.selector {
            Some(sel) => {
                let l = self.locate(sel).await?;
                (
                    json!({"id": l.control.id, "name": l.control.name, "keys": k.keys}),
                    Some(l),
                )
            }
            None => (json!({"keys": k.keys, "control_focus": false}), None),
        };
        self.act("keyboard_input", args).await?;
        Ok(Done {
            located,
            ..Done::default()
        })
    }

    async fn wait_el(&mut self, w: &WaitEl, timeout_s: Option<f64>) -> Result<Done, StepError> {
        let secs = timeout_s.unwrap_or(crate::step::limits::DEFAULT_WAIT_EL_S);
        let answer = self
            .observe(
                "wait_for_control",
                json!({"selector": w.selector, "timeout_s": secs, "gone": w.gone}),
            )
            .await?;
        let located = waited_control(&answer).map(|control| Located {
            control,
            healed_from: None,
        });
        Ok(Done {
            located,
            message: answer["waited_ms"].as_u64().map(texts::waited),
            ..Done::default()
        })
    }

    /// `wait_for_control` as a condition: whether it saw what it waited for in time.
    pub(crate) async fn wait_for(
        &mut self,
        selector: &deft_protocol::selector::Selector,
        gone: bool,
        secs: f64,
    ) -> Result<bool, StepError> {
        let r = self
            .call(
                ToolType::DataCollection,
                "wait_for_control",
                json!({"selector": selector, "timeout_s": secs, "gone": gone}),
                true,
            )
            .await;
        Ok(r.status == deft_protocol::ResultStatus::Success)
    }

    /// One wheel turn for `direction` and `amount`, inside `area` or the window (on a phone,
    /// a swipe the finger makes that way).
    async fn wheel(
        &mut self,
        direction: Direction,
        amount: f64,
        area: Option<&Located>,
    ) -> Result<(), StepError> {
        if self.has_screen_power() {
            // A phone swipes as a finger does, in all four directions.
            let mut args = json!({"direction": direction.as_str(), "amount": amount.max(0.05)});
            if let Some(l) = area {
                args["id"] = json!(l.control.id);
            }
            return self.act("swipe", args).await.map(|_| ());
        }
        let notches = (amount * NOTCHES_PER_AREA).round().max(1.0) as i32;
        // A finger moving up brings what is below into view: the wheel turns down (negative).
        let dist = match direction {
            Direction::Up => -notches,
            Direction::Down => notches,
            Direction::Left | Direction::Right => {
                return Err(StepError(texts::HORIZONTAL_SWIPE.to_owned()));
            }
        };
        let mut args = json!({"wheel_dist": dist});
        if let Some(l) = area {
            args["id"] = json!(l.control.id);
            args["name"] = json!(l.control.name);
        }
        self.act("wheel_mouse_input", args).await.map(|_| ())
    }

    async fn swipe(&mut self, s: &Swipe) -> Result<Done, StepError> {
        let area = match &s.area {
            Some(sel) => Some(self.locate(sel).await?),
            None => None,
        };
        self.wheel(s.direction, s.amount, area.as_ref()).await?;
        Ok(Done {
            located: area,
            ..Done::default()
        })
    }

    async fn swipe_until(&mut self, s: &SwipeUntil) -> Result<Done, StepError> {
        let area = match &s.area {
            Some(sel) => Some(self.locate(sel).await?),
            None => None,
        };
        for swipes in 0..=s.max_swipes {
            if self.present(&s.selector).await? {
                let l = self.locate(&s.selector).await?;
                return Ok(Done {
                    located: Some(l),
                    message: Some(texts::swipes_taken(swipes)),
                    ..Done::default()
                });
            }
            if swipes < s.max_swipes {
                self.wheel(s.direction, s.amount, area.as_ref()).await?;
            }
        }
        Err(StepError(texts::swipe_until_missed(
            &s.selector,
            s.max_swipes,
        )))
    }

    async fn click_xy(&mut self, c: &ClickXy) -> Result<Done, StepError> {
        self.act(
            "click_on_coordinates",
            json!({"x": c.x, "y": c.y, "button": c.button.as_str(), "double": c.double}),
        )
        .await?;
        Ok(Done::default())
    }

    /// `screen_on`, `screen_off` (`set_screen`) and `keep_screen` (`keep_awake`: always, or
    /// off) on a device with screen power; elsewhere the step is not supported.
    async fn screen(&mut self, action: &Action) -> Result<Done, StepError> {
        if !self.has_screen_power() {
            return Err(StepError(texts::not_supported(
                action.step_type().as_str(),
                self.device_id(),
            )));
        }
        let answer = match action {
            Action::ScreenOn => self.act("set_screen", json!({"on": true})).await?,
            Action::ScreenOff => self.act("set_screen", json!({"on": false})).await?,
            Action::KeepScreen(k) => {
                let mode = if k.on { "always" } else { "off" };
                self.act("keep_awake", json!({"mode": mode})).await?
            }
            _ => return unreachable_container(action),
        };
        Ok(Done::message(
            answer
                .as_object()
                .and_then(|o| o.iter().next())
                .map_or_else(String::new, |(k, v)| {
                    format!("{k}: {}", v.as_str().unwrap_or_default())
                }),
        ))
    }

    /// Whether the device powers its screen on and off (a phone).
    fn has_screen_power(&self) -> bool {
        self.profile() == PHONE_PROFILE
    }

    /// A gesture: on a phone one touch through every point (`swipe`); elsewhere drags from
    /// point to point (the shared tools drag in straight lines).
    async fn gesture(&mut self, g: &Gesture) -> Result<Done, StepError> {
        if self.has_screen_power() {
            let path: Vec<[f64; 2]> = g.points.iter().map(|p| [p.x, p.y]).collect();
            let ms = (g.duration_s * 1000.0).round() as u64;
            self.act("swipe", json!({"path": path, "duration_ms": ms}))
                .await?;
            return Ok(Done::default());
        }
        for pair in g.points.windows(2) {
            self.act(
                "drag_on_coordinates",
                json!({"start_x": pair[0].x, "start_y": pair[0].y, "end_x": pair[1].x, "end_y": pair[1].y}),
            )
            .await?;
        }
        Ok(Done::default())
    }
}
