// Model output → safe HTML. marked renders Markdown with raw HTML escaped (so `<b>` shows as
// text), links limited to http(s)/mailto; DOMPurify then sanitizes the result as a second wall.
import DOMPurify from "dompurify";
import { Marked, type Tokens } from "marked";

const SAFE_HREF = /^(https?:|mailto:)/i;

/** Escapes text for HTML. */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** The href if it is http(s) or mailto, else null. */
export function safeHref(href: string): string | null {
  const h = href.trim();
  return SAFE_HREF.test(h) ? h : null;
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    link({ href, title, tokens }: Tokens.Link): string {
      const inner = this.parser.parseInline(tokens);
      const url = safeHref(href);
      if (!url) return inner;
      const t = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(url)}"${t} rel="noopener noreferrer" target="_blank">${inner}</a>`;
    },
    image({ href, text }: Tokens.Image): string {
      // Model output loads nothing: an image becomes a link to it.
      const url = safeHref(href);
      const label = escapeHtml(text || href);
      if (!url) return label;
      return `<a href="${escapeHtml(url)}" rel="noopener noreferrer" target="_blank">🖼 ${label}</a>`;
    },
  },
});

const purify = DOMPurify(window);
purify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    const href = node.getAttribute("href");
    if (href === null || !safeHref(href)) node.removeAttribute("href");
    node.setAttribute("rel", "noopener noreferrer");
    node.setAttribute("target", "_blank");
  }
});

const PURIFY_CONFIG = {
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "img", "svg", "math", "iframe"],
  FORBID_ATTR: ["style", "srcset"],
  ADD_ATTR: ["target"],
};

/** Renders model Markdown to sanitized HTML. */
export function renderMarkdown(src: string): string {
  const html = marked.parse(src) as string;
  return purify.sanitize(html, PURIFY_CONFIG) as unknown as string;
}
