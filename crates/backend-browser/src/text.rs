//! Readable page text: the rendered text of the page, its same-origin frames, open shadow roots
//! and cross-origin frames, in that order.

use crate::browser::{Browser, BrowserError};

const FRAME_TEXT_JS: &str = r#"(() => {
  const parts = [];
  const visit = (doc) => {
    if (!doc || !doc.body) return;
    parts.push(doc.body.innerText);
    for (const el of doc.querySelectorAll('*')) {
      if (el.shadowRoot) {
        const t = Array.from(el.shadowRoot.children).map((c) => c.innerText || c.textContent || '').join('\n').trim();
        if (t) parts.push(t);
      }
      if (el.tagName === 'IFRAME') {
        let d = null;
        try { d = el.contentDocument; } catch (e) { d = null; }
        if (d) visit(d);
      }
    }
  };
  visit(document);
  return parts.map((p) => p.replace(/\n{3,}/g, '\n\n').trim()).filter((p) => p).join('\n\n');
})()"#;

/// The whole readable text of the tab whose page session is `page`.
pub(crate) async fn page_text(b: &Browser, page: &str) -> Result<String, BrowserError> {
    let mut text = b
        .eval(page, FRAME_TEXT_JS)
        .await?
        .as_str()
        .unwrap_or_default()
        .to_owned();
    for frame in b.child_frames(page) {
        if let Ok(v) = b.eval(&frame, FRAME_TEXT_JS).await
            && let Some(t) = v.as_str().filter(|t| !t.is_empty())
        {
            text.push_str("\n\n");
            text.push_str(t);
        }
    }
    Ok(text)
}
