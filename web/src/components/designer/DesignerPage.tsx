// Designer mode's page, 🧭 "AI builds a task" (docs/console-api.md "Designer mode"): the person
// describes an automation and picks the device; the designer run's exploration streams as the
// chat's does (the same step cards, the live view); its draft opens in the review (DraftReview);
// a run that ended without one says why. The one run slot is shared with the chat: while a chat
// runs this page says so and holds its button. A reload mid-run follows the run again; a draft
// kept from an earlier run is offered. Earlier explorations (the `🧭 …` conversations) are listed
// in the sidebar and open read-only.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, errorText } from "../../api";
import { isDesignerConversation, relative } from "../../format";
import { useDevices } from "../../hooks/useDevices";
import { runningRun, useRunStream } from "../../hooks/useRunStream";
import type { Conversation, ConversationDetail, TaskDraft } from "../../types";
import { Composer } from "../Composer";
import { ConversationList } from "../ConversationList";
import { DevicePicker, firstDevice } from "../DevicePicker";
import { ErrorBanner } from "../FormFields";
import { Lightbox } from "../Lightbox";
import { LiveView } from "../LiveView";
import { AssistantMessage, StoredMessage, storedKey, UserMessage } from "../MessageView";
import { OtherRunChip, OtherRunNote } from "../OtherRun";
import { PageNav, UserFoot } from "../PageNav";
import { MenuButton, Sidebar } from "../Sidebar";
import { DraftReview } from "./DraftReview";

/** What the main area shows. */
type View =
  /** The describe box, and the latest run of this visit (live or ended) above it. */
  | { kind: "describe" }
  /** A draft in the review. */
  | { kind: "review"; draft: TaskDraft }
  /** An earlier exploration, read-only. */
  | { kind: "exploration"; id: string };

/** The page. */
export function DesignerPage({ username, onLoggedOut }: { username: string; onLoggedOut: () => void }) {
  const { devices, reload: reloadDevices } = useDevices();
  const [deviceId, setDeviceId] = useState("");
  const [view, setView] = useState<View>({ kind: "describe" });
  const [kept, setKept] = useState<TaskDraft | null>(null);
  const [explorations, setExplorations] = useState<Conversation[]>([]);
  const [prompt, setPrompt] = useState("");
  const [sending, setSending] = useState(false);
  const [banner, setBanner] = useState<string | null>(null);
  const [showLive, setShowLive] = useState(true);
  const [lightbox, setLightbox] = useState<{ src: string; alt: string } | null>(null);
  const [liveDevice, setLiveDevice] = useState<string | null>(null);
  // Whether the review holds unsaved edits (leaving it asks first).
  const reviewDirty = useRef(false);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const bodyRef = useRef<HTMLDivElement>(null);

  const loadExplorations = useCallback(async () => {
    try {
      setExplorations((await api.conversations()).filter(isDesignerConversation));
    } catch (e) {
      setBanner(errorText(e));
    }
  }, []);

  /** The kept draft (null when none is kept). */
  const loadKept = useCallback(async (): Promise<TaskDraft | null> => {
    try {
      const d = await api.draft();
      setKept(d);
      return d;
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 404)) setBanner(errorText(e));
      setKept(null);
      return null;
    }
  }, []);

  const runStream = useRunStream({
    mode: "designer",
    onError: setBanner,
    onFinished: async (v) => {
      void loadExplorations();
      void reloadDevices();
      // Its draft opens in the review at once; a run without one stays, with why.
      const d = await loadKept();
      if (d && d.run_id === v.runId) setView((now) => (now.kind === "describe" ? { kind: "review", draft: d } : now));
    },
  });
  const { run, active: runActive, stopping, connection, other } = runStream;

  // First load: the devices and settings, a designer run under way (followed again), the kept draft.
  useEffect(() => {
    void (async () => {
      const [s, ds, running] = await Promise.all([
        api.settings().catch(() => null),
        api.devices().catch(() => []),
        runningRun(),
        loadKept(),
        loadExplorations(),
      ]);
      // A device the person picked while this loaded stays picked.
      setDeviceId((now) => now || firstDevice(ds, s?.default_device));
      runStream.adopt(running);
      requestAnimationFrame(() => inputRef.current?.focus());
    })();
  }, []);

  // Keep the newest step in view while the exploration streams.
  useEffect(() => {
    const el = bodyRef.current;
    if (el && runActive) el.scrollTop = el.scrollHeight;
  });

  /** Leaving the review with edits asks first. */
  const mayLeaveReview = () =>
    view.kind !== "review" || !reviewDirty.current || window.confirm("Leave the draft? Your edits to it will be lost (the drafted version stays kept).");

  const explore = async () => {
    const text = prompt.trim();
    if (!text || sending || runActive || other) return;
    if (!mayLeaveReview()) return;
    setSending(true);
    setBanner(null);
    try {
      const r = await api.startRun(text, undefined, deviceId || undefined, "designer");
      setPrompt("");
      setView({ kind: "describe" });
      runStream.follow({ ...r, prompt: text, mode: "designer" });
      void loadExplorations();
      void reloadDevices();
    } catch (e) {
      setBanner(errorText(e));
      if ((e as { status?: number }).status === 409) runStream.adopt(await runningRun());
    } finally {
      setSending(false);
    }
  };

  const openImage = useCallback((src: string, alt: string) => setLightbox({ src, alt }), []);
  const startNew = () => {
    if (!mayLeaveReview()) return;
    setView({ kind: "describe" });
    requestAnimationFrame(() => inputRef.current?.focus());
  };
  const openExploration = (id: string) => {
    if (!mayLeaveReview()) return;
    // The running exploration shows live on the describe view.
    setView(runActive && run?.conversation === id ? { kind: "describe" } : { kind: "exploration", id });
  };
  const removeExploration = async (c: Conversation) => {
    if (!window.confirm(`Delete the exploration “${c.title}”? Its draft, if kept, stays.`)) return;
    try {
      await api.deleteConversation(c.id);
      if (view.kind === "exploration" && view.id === c.id) setView({ kind: "describe" });
      void loadExplorations();
    } catch (e) {
      setBanner(errorText(e));
    }
  };

  const chosen = devices.find((d) => d.id === deviceId);
  const disabledReason = runActive
    ? null
    : other
      ? "A chat run holds the agent: exploring waits until it ends"
      : !deviceId
        ? "Choose a device first (🎯 above)"
        : chosen?.busy
          ? `${deviceId} is busy — choose another device or wait`
          : null;
  // The live view follows the run, else the draft under review, else the device chosen.
  const reviewDevice = view.kind === "review" ? liveDevice : null;
  const liveId = runActive ? run!.device : (reviewDevice ?? deviceId);
  // The latest run of this visit shows on the describe view (live, or how it ended).
  const shownRun = view.kind === "describe" ? run : null;

  return (
    <div class={showLive ? "console with-live" : "console"}>
      <Sidebar>
        <PageNav current="designer" />
        <ConversationList
          conversations={explorations}
          current={view.kind === "exploration" ? view.id : null}
          runningConversation={runActive ? run!.conversation : null}
          onSelect={openExploration}
          onNew={startNew}
          onDelete={(c) => void removeExploration(c)}
          newLabel="+ New exploration"
          newTitle="Describe another automation"
          label="Explorations"
          empty="No explorations yet."
        />
        <UserFoot username={username} onLoggedOut={onLoggedOut} beforeLogout={runStream.close} />
      </Sidebar>

      <main class="chat designer">
        <header class="topbar">
          <MenuButton />
          <div class="topbar-title">
            <h1>🧭 AI builds a task</h1>
          </div>
          <div class="topbar-tools">
            {runActive && (
              <span class="chip chip-running" data-testid="run-indicator">
                <span class="pulse" aria-hidden="true" /> {connection === "live" ? "exploring" : "reconnecting…"}
              </span>
            )}
            {other && <OtherRunChip run={other} />}
            {view.kind !== "review" && (
              <DevicePicker devices={devices} value={runActive ? run!.device : deviceId} onChange={setDeviceId} locked={runActive} title="The device the AI explores" />
            )}
            {!showLive && (
              <button class="btn btn-ghost btn-small" onClick={() => setShowLive(true)}>
                📺 Live
              </button>
            )}
          </div>
        </header>

        <ErrorBanner message={banner} onDismiss={() => setBanner(null)} />

        {view.kind === "review" ? (
          <DraftReview
            key={`${view.draft.run_id}-${view.draft.created}`}
            kept={view.draft}
            devices={devices}
            onOpenImage={openImage}
            onDirty={(d) => (reviewDirty.current = d)}
            onLiveDevice={setLiveDevice}
            onClosed={() => {
              reviewDirty.current = false;
              setKept(null);
              setView({ kind: "describe" });
            }}
          />
        ) : view.kind === "exploration" ? (
          <Exploration key={view.id} id={view.id} kept={kept} onOpenImage={openImage} onReview={(d) => setView({ kind: "review", draft: d })} onBack={startNew} />
        ) : (
          <>
            <div class="messages" ref={bodyRef}>
              {!shownRun && (
                <div class="empty designer-intro">
                  <p>
                    <strong>Describe an automation.</strong> The AI explores <strong>{deviceId || "a device"}</strong> — looks at the screen, reads
                    its controls, tries each step — and drafts one task you review, try and schedule.
                  </p>
                  <p class="muted small">Nothing is saved until you save it as a task.</p>
                </div>
              )}
              {!shownRun && kept && <KeptOffer kept={kept} onOpen={() => setView({ kind: "review", draft: kept })} onDiscarded={() => setKept(null)} onError={setBanner} />}
              {shownRun && <UserMessage text={shownRun.prompt} />}
              {shownRun && (
                <AssistantMessage
                  runId={shownRun.runId}
                  content={shownRun.content}
                  reasoning={shownRun.reasoning}
                  steps={shownRun.steps}
                  usage={shownRun.usage}
                  status={shownRun.status}
                  errors={shownRun.errors}
                  memory={shownRun.memory}
                  live={true}
                  onAnswer={runStream.answer}
                  onOpenImage={openImage}
                />
              )}
              {shownRun && shownRun.status !== "running" && shownRun.draftError && (
                <div class="banner banner-error draft-error" role="alert" data-testid="draft-error">
                  <strong>No task draft.</strong> {shownRun.draftError}
                  <div class="small muted">Describe it again — more precisely, or on another device — to try once more.</div>
                </div>
              )}
              {shownRun && shownRun.status !== "running" && !shownRun.draftError && kept && kept.run_id === shownRun.runId && (
                <button class="btn btn-primary" onClick={() => setView({ kind: "review", draft: kept })} data-testid="open-draft">
                  Review the draft
                </button>
              )}
            </div>
            {other && <OtherRunNote run={other} />}
            <Composer
              value={prompt}
              onInput={setPrompt}
              onSend={() => void explore()}
              onStop={() => void runStream.stop()}
              running={runActive}
              stopping={stopping}
              sending={sending}
              disabledReason={disabledReason}
              inputRef={inputRef}
              placeholder="Describe the automation: what to open, what to do, what to check — Enter starts, Shift+Enter for a new line"
              sendLabel="🧭 Explore and draft"
              label="What the task should do"
            />
          </>
        )}
      </main>

      {showLive && <LiveView device={devices.find((d) => d.id === liveId)} following={runActive ? "explored by the run" : reviewDevice ? "the draft's device" : "selected"} onHide={() => setShowLive(false)} />}
      {lightbox && <Lightbox src={lightbox.src} alt={lightbox.alt} onClose={() => setLightbox(null)} />}
    </div>
  );
}

/** The draft an earlier designer run kept: open it, or discard it. */
function KeptOffer({ kept, onOpen, onDiscarded, onError }: { kept: TaskDraft; onOpen: () => void; onDiscarded: () => void; onError: (m: string) => void }) {
  const name = typeof (kept.draft as { name?: unknown })?.name === "string" ? (kept.draft as { name: string }).name : "";
  const discard = async () => {
    if (!window.confirm(`Discard the draft “${name}”? It is not a task; it cannot be brought back.`)) return;
    try {
      await api.discardDraft();
      onDiscarded();
    } catch (e) {
      onError(errorText(e));
    }
  };
  return (
    <section class="kept-draft" aria-label="Kept draft" data-testid="kept-draft">
      <div>
        <strong>A draft is waiting for review:</strong> “{name}” on <span class="mono">{kept.device}</span>, drafted {relative(kept.created)}
        {kept.warnings.length > 0 && <span class="chip chip-waiting">! {kept.warnings.length}</span>}
      </div>
      <div class="muted small">Asked: “{kept.prompt}”</div>
      <div class="kept-draft-buttons">
        <button class="btn btn-primary btn-small" onClick={onOpen} data-testid="open-kept">
          Open it
        </button>
        <button class="btn btn-ghost btn-small btn-danger-text" onClick={() => void discard()} data-testid="discard-kept">
          Discard
        </button>
      </div>
    </section>
  );
}

/** An earlier exploration's conversation, read-only; its draft, if it is the kept one, opens. */
function Exploration(p: { id: string; kept: TaskDraft | null; onOpenImage: (src: string, alt: string) => void; onReview: (d: TaskDraft) => void; onBack: () => void }) {
  const [detail, setDetail] = useState<ConversationDetail | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    api
      .conversation(p.id)
      .then(setDetail)
      .catch((e) => setError(errorText(e)));
  }, [p.id]);
  const runs = new Set((detail?.messages ?? []).map((m) => m.run_id).filter(Boolean));
  const draftHere = p.kept && runs.has(p.kept.run_id) ? p.kept : null;
  return (
    <div class="messages" data-testid="exploration">
      <div class="exploration-bar">
        <button class="btn btn-ghost btn-small" onClick={p.onBack}>
          ← New exploration
        </button>
        {draftHere && (
          <button class="btn btn-primary btn-small" onClick={() => p.onReview(draftHere)} data-testid="open-draft">
            Review its draft
          </button>
        )}
      </div>
      {error && (
        <div class="banner banner-error" role="alert">
          {error}
        </div>
      )}
      {!detail && !error && <p class="muted">Loading…</p>}
      {detail?.messages.map((m, i) => <StoredMessage key={storedKey(m, i)} m={m} onOpenImage={p.onOpenImage} />)}
    </div>
  );
}
