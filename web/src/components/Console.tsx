// The chat console: conversations, the chat with its live run, the device's live view, settings.
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { addUsage, num, shortId } from "../format";
import { useConversations } from "../hooks/useConversations";
import { runningRun, useRunStream } from "../hooks/useRunStream";
import { storedStepView } from "../run-state";
import type { Device, Message, Settings, Usage } from "../types";
import { Composer } from "./Composer";
import { ErrorBanner } from "./FormFields";
import { ConversationList } from "./ConversationList";
import { Lightbox } from "./Lightbox";
import { LiveView } from "./LiveView";
import { AssistantMessage, UserMessage } from "./MessageView";
import { PageNav, UserFoot } from "./PageNav";
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
    onError: setBanner,
    // After the run: refresh what it changed.
    onFinished: async (view) => {
      void conversations.refresh();
      void loadDevices();
      await conversations.reloadIfOpen(view.conversation);
    },
  });
  const { run, active: runActive, stopping, connection } = runStream;

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
      const usable = (ds ?? []).filter((d) => !d.busy);
      const preferred = s?.default_device && (ds ?? []).some((d) => d.id === s.default_device) ? s.default_device : "";
      const local = usable.find((d) => d.id === "local");
      setDeviceId(preferred || local?.id || usable[0]?.id || ds?.[0]?.id || "");
      conversations.restore(running?.conversation ?? null);
      if (running) runStream.follow(running);
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

  const send = async () => {
    const text = prompt.trim();
    if (!text || sending || runActive) return;
    setSending(true);
    setBanner(null);
    try {
      const r = await api.startRun(text, currentId ?? undefined, deviceId || undefined);
      setPrompt("");
      nearBottom.current = true;
      runStream.follow({ ...r, prompt: text });
      conversations.openRun(r.conversation);
      void conversations.refresh();
      void loadDevices();
    } catch (e) {
      setBanner(errorText(e));
    } finally {
      setSending(false);
    }
  };

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

  const liveDeviceId = runActive ? run!.device : deviceId;
  const liveDevice = devices.find((d) => d.id === liveDeviceId);
  const selectedDevice = devices.find((d) => d.id === deviceId);
  const disabledReason = runActive
    ? null
    : !deviceId
      ? "Choose a device first (🎯 above)"
      : selectedDevice?.busy
        ? `${deviceId} is busy — choose another device or wait`
        : null;

  return (
    <div class={showLive ? "console with-live" : "console"}>
      <aside class="sidebar">
        <div class="brand">
          <span class="brand-mark">◆</span> deft <span class="muted small">console</span>
        </div>
        <PageNav current="chat" />
        <ConversationList
          conversations={convs}
          current={currentId}
          runningConversation={runActive ? run!.conversation : null}
          onSelect={conversations.select}
          onNew={conversations.startNew}
          onDelete={(c) => void conversations.remove(c)}
        />
        <UserFoot username={username} onLoggedOut={onLoggedOut} beforeLogout={runStream.close} />
      </aside>

      <main class="chat">
        <header class="topbar">
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
            <span class="tokens" title="Tokens used in this conversation" data-testid="conv-total">
              🪙 this conversation {num(totalUsage?.total_tokens ?? 0)} tokens
            </span>
            <label class="device-picker" title="The device the agent operates">
              🎯
              <select
                value={runActive ? run!.device : deviceId}
                disabled={runActive}
                onChange={(e) => setDeviceId(e.currentTarget.value)}
                aria-label="Device"
                data-testid="device-picker"
              >
                {!devices.some((d) => d.id === deviceId) && <option value={deviceId}>{deviceId || "— device —"}</option>}
                {devices.map((d) => (
                  <option key={d.id} value={d.id} disabled={d.busy && !(runActive && run!.device === d.id)}>
                    {d.id} · {d.profile}
                    {d.busy ? " (busy)" : ""}
                  </option>
                ))}
              </select>
            </label>
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
            ...stored.map((m, i) =>
              m.role === "user" ? (
                <UserMessage key={`m${i}`} text={m.content} />
              ) : (
                <AssistantMessage
                  key={m.run_id ? `run-${m.run_id}` : `m${i}`}
                  runId={m.run_id ?? ""}
                  content={m.content}
                  reasoning={m.reasoning ?? ""}
                  steps={(m.steps ?? []).map(storedStepView)}
                  usage={m.usage}
                  status={m.status}
                  memory={m.memory}
                  live={false}
                  onOpenImage={openImage}
                />
              ),
            ),
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
                    live={true}
                    onAnswer={runStream.answer}
                    onOpenImage={openImage}
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
          // Opened before the settings arrived: it starts again with them once they do, so
          // the fields never show defaults in place of what is stored.
          key={settings ? "loaded" : "loading"}
          settings={settings}
          devices={devices}
          onClose={() => setShowSettings(false)}
          onSaved={(s) => {
            setSettings(s);
            setShowSettings(false);
            if (s.default_device && !runActive) setDeviceId(s.default_device);
          }}
        />
      )}
      {lightbox && <Lightbox src={lightbox.src} alt={lightbox.alt} onClose={() => setLightbox(null)} />}
    </div>
  );
}
