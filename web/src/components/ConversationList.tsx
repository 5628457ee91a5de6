// The conversation list: title, time, the id's first 8 characters (click copies the whole id).
import { useState } from "preact/hooks";
import { shortId, when } from "../format";
import type { Conversation } from "../types";

/** Props of the list. */
export interface ConversationListProps {
  conversations: Conversation[];
  current: string | null;
  runningConversation: string | null;
  onSelect: (id: string) => void;
  onNew: () => void;
  onDelete: (c: Conversation) => void;
  /** The new-button's text and tooltip (default: a new conversation, Alt+N). */
  newLabel?: string;
  newTitle?: string;
  /** The list's accessible name and what it says when empty. */
  label?: string;
  empty?: string;
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement("textarea");
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand("copy");
    ta.remove();
    return ok;
  }
}

/** The sidebar list. */
export function ConversationList(p: ConversationListProps) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async (e: Event, id: string) => {
    e.stopPropagation();
    if (await copyText(id)) {
      setCopied(id);
      setTimeout(() => setCopied((c) => (c === id ? null : c)), 1500);
    }
  };
  return (
    <nav class="convs" aria-label={p.label ?? "Conversations"}>
      <button class="btn btn-primary btn-block" onClick={p.onNew} title={p.newTitle ?? "New conversation (Alt+N)"} data-closes-drawer>
        {p.newLabel ?? "+ New conversation"}
      </button>
      <ul>
        {p.conversations.map((c) => (
          <li
            key={c.id}
            class={c.id === p.current ? "conv conv-current" : "conv"}
            data-testid="conv"
            data-id={c.id}
          >
            <button class="conv-main" onClick={() => p.onSelect(c.id)} aria-current={c.id === p.current} data-closes-drawer>
              <span class="conv-title">
                {c.id === p.runningConversation && <span class="dot-running" title="a run is active" />}
                {c.title || "Untitled"}
              </span>
              <span class="conv-meta muted">{when(c.updated_at)}</span>
            </button>
            <span class="conv-actions">
              <button
                class="conv-id"
                title={`Copy the id ${c.id}`}
                onClick={(e) => void copy(e, c.id)}
                data-testid="conv-id"
              >
                {copied === c.id ? "copied" : shortId(c.id)}
              </button>
              <button class="conv-delete" title="Delete conversation" aria-label="Delete" onClick={() => p.onDelete(c)}>
                ✕
              </button>
            </span>
          </li>
        ))}
      </ul>
      {p.conversations.length === 0 && <p class="muted small">{p.empty ?? "No conversations yet."}</p>}
    </nav>
  );
}
