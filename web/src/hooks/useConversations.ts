// The conversations: the list, the open one (in the path, `/c/ID`) and its messages, select/new/delete.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { shortId } from "../format";
import type { Conversation, ConversationDetail } from "../types";

/** The conversation id in the page's path (`/c/ID`), if any. */
function convFromPath(): string | null {
  const m = /^\/c\/([^/]+)\/?$/.exec(window.location.pathname);
  return m ? decodeURIComponent(m[1]) : null;
}

/** Puts the conversation in the page's path, so a reload or a link opens it. */
function setPath(id: string | null, replace = false): void {
  const path = id ? `/c/${encodeURIComponent(id)}` : "/";
  if (window.location.pathname === path) return;
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
}

/** What the console does on the hook's behalf. */
export interface ConversationHandlers {
  /** Shows what the server refused. */
  onError(message: string): void;
  /** The person chose a conversation, or a new one (not by the back button, not by a run). */
  onChosen(): void;
}

/** The conversations of the console. */
export function useConversations(handlers: ConversationHandlers) {
  const [list, setList] = useState<Conversation[]>([]);
  const [currentId, setCurrentId] = useState<string | null>(null);
  const [detail, setDetail] = useState<ConversationDetail | null>(null);
  // The open conversation for callbacks that finish after a later render.
  const currentRef = useRef<string | null>(null);
  currentRef.current = currentId;
  const on = useRef(handlers);
  on.current = handlers;

  /** Reloads the list. */
  const refresh = useCallback(async () => {
    try {
      setList(await api.conversations());
    } catch (e) {
      on.current.onError(errorText(e));
    }
  }, []);

  /** Loads a conversation's messages; they (or the error) show only if it is still open. */
  const loadDetail = useCallback(async (id: string) => {
    try {
      const d = await api.conversation(id);
      if (currentRef.current === id) setDetail(d);
    } catch (e) {
      if (currentRef.current === id) on.current.onError(errorText(e));
    }
  }, []);

  /** Makes `id` (null: a new conversation) the open one and loads it; `clear` drops the messages
   * shown so far. */
  const show = useCallback(
    (id: string | null, clear: boolean) => {
      setCurrentId(id);
      currentRef.current = id;
      if (clear) setDetail(null);
      if (id) void loadDetail(id);
    },
    [loadDetail],
  );

  /** Reloads the messages of `id` if it is open (after a run in it ended). */
  const reloadIfOpen = useCallback(
    async (id: string) => {
      if (currentRef.current === id) await loadDetail(id);
    },
    [loadDetail],
  );

  /** On the first load: opens the conversation of the active run, else the one in the page's path. */
  const restore = useCallback(
    (runningConversation: string | null) => {
      const open = runningConversation ?? convFromPath();
      if (!open) return;
      setPath(open, true);
      show(open, false);
    },
    [show],
  );

  // Back and forward move between conversations.
  useEffect(() => {
    const pop = () => show(convFromPath(), true);
    window.addEventListener("popstate", pop);
    return () => window.removeEventListener("popstate", pop);
  }, [show]);

  /** Opens another conversation. */
  const select = (id: string) => {
    if (id === currentId) return;
    setPath(id);
    show(id, true);
    on.current.onChosen();
  };

  /** Shows an empty chat; the first message creates the conversation. */
  const startNew = () => {
    setPath(null);
    show(null, true);
    on.current.onChosen();
  };

  /** Opens the conversation a run was just started in, keeping what it shows until it reloads. */
  const openRun = (id: string) => {
    setPath(id, currentId === id);
    show(id, false);
  };

  /** Deletes a conversation once the person confirms. */
  const remove = async (c: Conversation) => {
    if (!window.confirm(`Delete the conversation “${c.title || shortId(c.id)}”?`)) return;
    try {
      await api.deleteConversation(c.id);
      if (c.id === currentId) startNew();
      void refresh();
    } catch (e) {
      on.current.onError(errorText(e));
    }
  };

  return { list, currentId, detail, refresh, reloadIfOpen, restore, select, startNew, openRun, remove };
}
