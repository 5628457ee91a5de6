//! Controls for actions: resolving an id (known, in the selected tab, still there), locating
//! the element for input, running script on it, and ids for DOM nodes no listing gave out.

use std::time::{Duration, Instant};

use deft_protocol::observation::ControlType;
use serde_json::{Value, json};

use super::agent::AGENT_JS;
use super::state::ControlRef;
use super::{Browser, BrowserError, Result};
use crate::texts;

/// Where an element is, ready for input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Point {
    pub x: f64,
    pub y: f64,
}

impl Browser {
    /// Resolves control `id` (given as text) for an action: known, in the selected tab, still on
    /// the page. Returns the reference and a name warning.
    pub(crate) fn control(
        &self,
        id: &str,
        name: Option<&str>,
    ) -> Result<(u64, ControlRef, Option<String>)> {
        let (window, _) = self.current()?;
        let n = parse_id(id).ok_or_else(|| BrowserError::model(texts::bad_id("control", id)))?;
        let st = self.state();
        let Some(c) = st.controls.get(&n).cloned() else {
            return Err(BrowserError::model(texts::unknown_control(
                id,
                st.listed_range.get(&window).copied(),
            )));
        };
        if c.window != window {
            return Err(BrowserError::model(texts::control_in_other_window(
                n, c.window,
            )));
        }
        let warning = name
            .map(deft_protocol::observation::clean_name)
            .filter(|g| !g.is_empty() && *g != deft_protocol::observation::clean_name(&c.name))
            .map(|g| texts::control_name_warning(n, &g, &c.name, c.kind.as_str()));
        Ok((n, c, warning))
    }

    /// Locates a control for input: scrolls it (and its iframes) into view and returns its
    /// centre in the tab's viewport. Stale, hidden and disabled controls are errors; a disabled
    /// control is waited for briefly.
    pub(crate) async fn locate(
        &self,
        id: u64,
        c: &ControlRef,
        need_enabled: bool,
    ) -> Result<Point> {
        let mut ox = 0.0;
        let mut oy = 0.0;
        let stale = || BrowserError::model(texts::stale_control(id, &c.name));
        for hop in &c.hops {
            let v = self
                .locate_element(&hop.session, &hop.doc, hop.key)
                .await
                .ok_or_else(stale)?;
            let w = v["w"].as_f64().unwrap_or(0.0);
            let h = v["h"].as_f64().unwrap_or(0.0);
            ox += v["x"].as_f64().unwrap_or(0.0) - w / 2.0;
            oy += v["y"].as_f64().unwrap_or(0.0) - h / 2.0;
        }
        let deadline = Instant::now() + Duration::from_millis(1000);
        loop {
            let v = self
                .locate_element(&c.session, &c.doc, c.key)
                .await
                .ok_or_else(stale)?;
            if v["visible"] != true {
                return Err(BrowserError::model(texts::control_hidden(id, &c.name)));
            }
            if need_enabled && v["disabled"] == true {
                if Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                return Err(BrowserError::model(texts::control_disabled(id, &c.name)));
            }
            return Ok(Point {
                x: ox + v["x"].as_f64().unwrap_or(0.0),
                y: oy + v["y"].as_f64().unwrap_or(0.0),
            });
        }
    }

    /// Scrolls element `key` of document `doc` (frame session `session`) into view and reads
    /// where it is (`x`, `y`, `w`, `h`, `visible`, `disabled`); `None` when it or its document
    /// is gone.
    async fn locate_element(&self, session: &str, doc: &str, key: u64) -> Option<Value> {
        let call = format!(
            "__deft.doc === {} ? __deft.locate({key}, true) : {{gone: true}}",
            json!(doc)
        );
        let v = self
            .eval(session, &call)
            .await
            .unwrap_or(json!({"gone": true}));
        (v["gone"] != true).then_some(v)
    }

    /// Runs `f(el)` (a JS function body over the element `el`) in the control's frame; `gone`
    /// when stale.
    pub(crate) async fn on_element(&self, id: u64, c: &ControlRef, body: &str) -> Result<Value> {
        let v = self
            .eval(
                &c.session,
                &format!(
                    "(() => {{ if (__deft.doc !== {doc}) return {{gone: true}}; let el = __deft.find({k}); if (!el) return {{gone: true}}; if (el.nodeType === 3) el = el.parentElement; return (async (el) => {{ {body} }})(el); }})()",
                    doc = json!(c.doc),
                    k = c.key
                ),
            )
            .await?;
        if v.is_object() && v["gone"] == true {
            return Err(BrowserError::model(texts::stale_control(id, &c.name)));
        }
        Ok(v)
    }

    /// The page agent's document token, element key and name of DOM node `backend_node_id` of
    /// frame session `session`.
    pub(super) async fn node_key(
        &self,
        session: &str,
        backend_node_id: i64,
    ) -> Result<(String, u64, String)> {
        let node = self
            .cdp()
            .call(
                Some(session),
                "DOM.resolveNode",
                json!({"backendNodeId": backend_node_id}),
            )
            .await?;
        let Some(object) = node["object"]["objectId"].as_str() else {
            return Err(BrowserError::model(texts::browser_failed(
                "the element is gone",
            )));
        };
        let v = self
            .cdp()
            .call(
                Some(session),
                "Runtime.callFunctionOn",
                json!({
                    "objectId": object,
                    "returnByValue": true,
                    "functionDeclaration": format!(
                        "function () {{ {AGENT_JS}\n; const r = __deft.roleOf(this); return {{doc: __deft.doc, k: __deft.key(this), name: __deft.nameOf(this, r)}}; }}"
                    ),
                }),
            )
            .await?;
        let v = &v["result"]["value"];
        let (Some(doc), Some(key)) = (v["doc"].as_str(), v["k"].as_u64()) else {
            return Err(BrowserError::model(texts::browser_failed(
                "the page agent answered unexpectedly",
            )));
        };
        let name = v["name"].as_str().unwrap_or_default().to_owned();
        Ok((doc.to_owned(), key, name))
    }

    /// The control id of DOM node `backend_node_id` of frame session `session` in window
    /// `window`, and its name; a node no listing gave out gets its id now (never reused).
    pub(crate) async fn control_of_node(
        &self,
        window: u64,
        session: &str,
        backend_node_id: i64,
    ) -> Result<(u64, String)> {
        let (doc, key, name) = self.node_key(session, backend_node_id).await?;
        let doc = doc.as_str();
        let mut st = self.state();
        let id = st.control_id(session, doc, key);
        if !st.controls.contains_key(&id) {
            let hops = st
                .controls
                .values()
                .find(|c| c.session == session && c.doc == doc)
                .map(|c| c.hops.clone())
                .unwrap_or_default();
            st.controls.insert(
                id,
                ControlRef {
                    window,
                    session: session.to_owned(),
                    doc: doc.to_owned(),
                    key,
                    name: name.clone(),
                    kind: ControlType::Button,
                    hops,
                },
            );
        }
        Ok((id, name))
    }
}

/// Parses an id: a decimal string without leading zeros (or a number), `>= 1`.
pub(crate) fn parse_id(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() || s.starts_with('0') || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|n| *n > 0)
}
