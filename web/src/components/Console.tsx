// The chat console: conversations, the chat with its live run, the device's live view, settings.
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { addUsage, isDesignerConversation, num, shortId } from "../format";
import { useConversations } from "../hooks/useConversations";
import { runningRun, useRunStream } from "../hooks/useRunStream";
import type { Device, Message, Settings, Usage } from "../types";
import { Composer } from "./Composer";
import { OtherRunChip, OtherRunNote } from "./OtherRun";
import { DevicePicker, firstDevice } from "./DevicePicker";
import { ErrorBanner, NoticeBanner } from "./FormFields";
import { ConversationList } from "./ConversationList";
import { Lightbox } from "./Lightbox";
import { LiveView } from "./LiveView";
import { AssistantMessage, retryable, StoredMessage, storedKey, UserMessage } from "./MessageView";
import { PageNav, UserFoot } from "./PageNav";
import { MenuButton, Sidebar } from "./Sidebar";
import { SettingsDialog } from "./SettingsDialog";

/** Sum of the usage of stored assistant messages. */
function messagesUsage(ms: Message[]): Usage {
  return ms.reduce<Usage>((u, m) => (m.usage ? addUsage(u, m.usage) : u), addUsage(null, null));
}

/** The console page. */
export function Console({ username, onLoggedOut }: { username: string; onLoggedOut: () => void }) {
  const [devices, setDevices] = useState<Device[]>([]);
  const [settings, setSettings] = useState<Settings | null>(null);
  const [deviceId, setDeviceId] = useState("");
  const [banner, setBanner] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [showSettings, setShowSettings] = useState(false);
  const [showLive, setShowLive] = useState(true);
  const [lightbox, setLightbox] = useState<{ src: string; alt: string } | null>(null);
  const [prompt, setPrompt] = useState("");
  const [sending, setSending] = useState(false);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const chatRef = useRef<HTMLDivElement>(null);

  const loadDevices = useCallback(async () => {
    try {
      const ds = await api.devices();
      setDevices(ds);
      return ds;
    } catch {
      return null;
    }
  }, []);

  const conversations = useConversations({ onError: setBanner, onChosen: () => inputRef.current?.focus() });
  const { list: convs, currentId, detail } = conversations;
  const runStream = useRunStream({
    mode: "chat",
    onError: setBanner,
    // After the run: refresh what it changed.
    onFinished: async (view) => {
      void conversations.refresh();
      void loadDevices();
      await conversations.reloadIfOpen(view.conversation);
    },
  });
  const { run, active: runActive, stopping, connection, other } = runStream;

  // First load, and recovery of an active run after a reload.
  useEffect(() => {
    void (async () => {
      const [s, ds, running] = await Promise.all([
        api.settings().catch((e) => {
          setBanner(errorText(e));
          return null;
        }),
        loadDevices(),
        runningRun(),
        conversations.refresh(),
      ]);
      setSettings(s);
      // A device the person picked while this loaded stays picked.
      setDeviceId((now) => now || firstDevice(ds ?? [], s?.default_device));
      conversations.restore(running?.mode === "chat" ? running.conversation : null);
      runStream.adopt(running);
    })();
  }, []);

  // Devices every 5 s.
  useEffect(() => {
    const t = setInterval(() => void loadDevices(), 5000);
    return () => clearInterval(t);
  }, [loadDevices]);

  // Keep the newest message in view while the person is at the bottom.
  const nearBottom = useRef(true);
  useEffect(() => {
    const el = chatRef.current;
    if (el && nearBottom.current) el.scrollTop = el.scrollHeight;
  });

  // Keyboard: Alt+N new conversation, "/" focuses the message box.
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLElement && /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName);
      if (e.altKey && (e.key === "n" || e.key === "N")) {
        e.preventDefault();
        conversations.startNew();
      } else if (e.key === "/" && !typing && !showSettings) {
        e.preventDefault();
        inputRef.current?.focus();
      }
    };
    window.addEventListener("keydown", key);
    return () => window.removeEventListener("keydown", key);
  });

  /** Starts a run of `text` in the open conversation (`typed`: it came from the message box). */
  const start = async (text: string, typed: boolean) => {
    if (!text || sending || runActive) return;
    setSending(true);
    setBanner(null);
    setNotice(null);
    try {
      const r = await api.startRun(text, currentId ?? undefined, deviceId || undefined);
      if (typed) setPrompt("");
      nearBottom.current = true;
      runStream.follow({ ...r, prompt: text });
      conversations.openRun(r.conversation);
      void conversations.refresh();
      void loadDevices();
    } catch (e) {
      setBanner(errorText(e));
      // Another run took the slot first (a designer run, another tab): show it.
      if ((e as { status?: number }).status === 409) runStream.adopt(await runningRun());
    } finally {
      setSending(false);
    }
  };
  const send = () => start(prompt.trim(), true);

  const openImage = useCallback((src: string, alt: string) => setLightbox({ src, alt }), []);

  // What the chat shows: stored messages, then the live run of this conversation.
  const liveHere = run !== null && run.conversation === currentId;
  const stored = useMemo(() => {
    const ms = detail && detail.id === currentId ? detail.messages : [];
    return liveHere ? ms.filter((m) => !(m.role === "assistant" && m.run_id === run!.runId)) : ms;
  }, [detail, currentId, liveHere, run?.runId]);
  const last = stored[stored.length - 1];
  const promptShown = liveHere && last?.role === "user" && last.content === run!.prompt;

  const conv = convs.find((c) => c.id === currentId);
  const here = detail && detail.id === currentId ? detail : null;
  const convUsage = here ? (here.usage ?? messagesUsage(here.messages)) : conv?.usage;
  const runStored = liveHere && !!here?.messages.some((m) => m.role === "assistant" && m.run_id === run!.runId);
  const totalUsage = liveHere && !runStored && run!.usage ? addUsage(convUsage, run!.usage) : convUsage;
  const title = detail?.title || conv?.title || (currentId ? "" : "New conversation");

  // The conversation's last run failed (the model server, the time): Retry sends its prompt again.
  const before = stored[stored.length - 2];
  const retryText =
    runActive || other
      ? null
      : liveHere
        ? retryable(run!.status)
          ? run!.prompt
          : null
        : last?.role === "assistant" && retryable(last.status) && before?.role === "user"
          ? before.content
          : null;
  const retry = retryText ? () => void start(retryText, false) : undefined;

  const liveDeviceId = runActive ? run!.device : deviceId;
  const liveDevice = devices.find((d) => d.id === liveDeviceId);
  const selectedDevice = devices.find((d) => d.id === deviceId);
  const disabledReason = runActive
    ? null
    : other
      ? "A designer run is exploring (🧭 AI builds a task): sending waits until it ends"
      : !deviceId
      ? "Choose a device first (🎯 above)"
      : selectedDevice?.busy
        ? `${deviceId} is busy — choose another device or wait`
        : null;

  return (
    <div class={showLive ? "console with-live" : "console"}>
      <Sidebar>
        <PageNav current="chat" />
        <ConversationList
          // Designer runs' conversations are listed on the 🧭 page, not here.
          conversations={convs.filter((c) => !isDesignerConversation(c))}
          current={currentId}
          runningConversation={runActive ? run!.conversation : null}
          onSelect={conversations.select}
          onNew={conversations.startNew}
          onDelete={(c) => void conversations.remove(c)}
        />
        <UserFoot username={username} onLoggedOut={onLoggedOut} beforeLogout={runStream.close} />
      </Sidebar>

      <main class="chat">
        <header class="topbar">
          <MenuButton />
          <div class="topbar-title">
            <h1 title={title}>{title || "…"}</h1>
            {currentId && <span class="muted small mono">conv={shortId(currentId)}</span>}
          </div>
          <div class="topbar-tools">
            {runActive && (
              <span class="chip chip-running" data-testid="run-indicator">
                <span class="pulse" aria-hidden="true" /> {connection === "live" ? "running" : "reconnecting…"}
              </span>
            )}
            {other && <OtherRunChip run={other} />}
            <span class="tokens" title="Tokens used in this conversation" data-testid="conv-total">
              🪙 this conversation {num(totalUsage?.total_tokens ?? 0)} tokens
            </span>
            <DevicePicker devices={devices} value={runActive ? run!.device : deviceId} onChange={setDeviceId} locked={runActive} title="The device the agent operates" />
            {!showLive && (
              <button class="btn btn-ghost btn-small" onClick={() => setShowLive(true)}>
                📺 Live
              </button>
            )}
            <button class="btn btn-ghost btn-small" onClick={() => setShowSettings(true)} data-testid="open-settings">
              ⚙ Settings
            </button>
          </div>
        </header>

        <ErrorBanner message={banner} onDismiss={() => setBanner(null)} />
        <NoticeBanner message={notice} onDismiss={() => setNotice(null)} />

        <div
          class="messages"
          ref={chatRef}
          onScroll={(e) => {
            const el = e.currentTarget;
            nearBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
          }}
        >
          {stored.length === 0 && !liveHere && (
            <div class="empty">
              <p>Tell the agent what to do on <strong>{deviceId || "a device"}</strong>.</p>
              <p class="muted small">It looks at the screen, acts through tools, and streams each step here.</p>
            </div>
          )}
          {[
            ...stored.map((m, i) => (
              <StoredMessage key={storedKey(m, i)} m={m} onOpenImage={openImage} onRetry={!liveHere && i === stored.length - 1 ? retry : undefined} />
            )),
            ...(liveHere && !promptShown ? [<UserMessage key="live-prompt" text={run!.prompt} />] : []),
            ...(liveHere
              ? [
                  <AssistantMessage
                    key={`run-${run!.runId}`}
                    runId={run!.runId}
                    content={run!.content}
                    reasoning={run!.reasoning}
                    steps={run!.steps}
                    usage={run!.usage}
                    status={run!.status}
                    errors={run!.errors}
                    memory={run!.memory}
                    output={run!.output}
                    live={true}
                    onAnswer={runStream.answer}
                    onOpenImage={openImage}
                    onRetry={retry}
                  />,
                ]
              : []),
          ]}
        </div>

        {runActive && !liveHere && (
          <div class="banner banner-info">
            A run is active in another conversation.{" "}
            <button class="link" onClick={() => conversations.select(run!.conversation)}>
              Show it
            </button>
          </div>
        )}
        {other && <OtherRunNote run={other} />}
        <Composer
          value={prompt}
          onInput={setPrompt}
          onSend={() => void send()}
          onStop={() => void runStream.stop()}
          running={runActive}
          stopping={stopping}
          sending={sending}
          disabledReason={disabledReason}
          inputRef={inputRef}
        />
      </main>

      {showLive && (
        <LiveView
          device={liveDevice}
          following={runActive ? "in use by the run" : "selected"}
          onHide={() => setShowLive(false)}
        />
      )}

      {showSettings && (
        <SettingsDialog
          // Opened before the settings arrived, its form starts again with them once they do.
          settings={settings}
          devices={devices}
          onClose={() => setShowSettings(false)}
          onSaved={(s) => {
            setSettings(s);
            setShowSettings(false);
            // What a refused send said about the settings is history now; say that they are saved.
            setBanner(null);
            setNotice(`Settings saved: model ${s.model || "not set"}, API key ${s.api_key_set ? "set" : "not set"}.`);
            if (s.default_device && !runActive) setDeviceId(s.default_device);
          }}
        />
      )}
      {lightbox && <Lightbox src={lightbox.src} alt={lightbox.alt} onClose={() => setLightbox(null)} />}
    </div>
  );
}
