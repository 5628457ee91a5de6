// A designer draft under review: the task file in the task file editor (steps, or JSON), checked
// by the server's validator as it is edited, with the draft's own warnings — the selectors no
// control matched during the exploration — kept at the steps they name until a try runs that step
// as written; "try it" runs the draft as it is now once on its device (a task run with trigger
// `try`), its per-step results on the step cards and listed beside; save as a task (name,
// optional schedule), or discard.
import { useEffect, useMemo, useState } from "preact/hooks";
import { api, errorText } from "../../api";
import { mergeIssues, pinWarnings, placeWarnings, provenByTry, type PinnedWarning } from "../../draft-warnings";
import { dateTime, relative } from "../../format";
import { useFileSave } from "../../hooks/useFileSave";
import { useValidation } from "../../hooks/useValidation";
import { ValidityChip } from "../common/EditorBar";
import { navigate, useLeaveGuard } from "../../router";
import type { Device, TaskDraft } from "../../types";
import type { Issues } from "../steps/issues";
import { TryPanel, useTry } from "../common/TryPanel";
import { draftOf, TaskFileEditor, type TaskDraft as FileDraft } from "../common/TaskFileEditor";
import { SaveAsTask } from "./SaveAsTask";

type Obj = Record<string, unknown>;

/** Props of the review. */
export interface DraftReviewProps {
  kept: TaskDraft;
  devices: Device[];
  onOpenImage: (src: string, alt: string) => void;
  /** Whether it holds unsaved edits. */
  onDirty: (dirty: boolean) => void;
  /** The device the draft runs on (a try run's while it runs), for the live view. */
  onLiveDevice: (device: string) => void;
  /** Saved or discarded: the review is over. */
  onClosed: () => void;
}

function fileOf(v: unknown): Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : { name: "", steps: [] };
}

/** The review. */
export function DraftReview({ kept, devices, onOpenImage, onDirty, onLiveDevice, onClosed }: DraftReviewProps) {
  const original = useMemo(() => draftOf(fileOf(kept.draft)), [kept]);
  const [draft, setDraft] = useState<FileDraft>(original);
  const dirty = draft.text !== original.text;
  const release = useLeaveGuard(dirty, "Leave the draft? Your edits to it will be lost (the drafted version stays kept).");
  useEffect(() => onDirty(dirty), [dirty]);
  const device = typeof draft.value?.device === "string" && draft.value.device ? draft.value.device : kept.device;
  const validation = useValidation(draft.text, device);
  const { issues: checked, banner, setBanner, refuse, setRefused } = useFileSave(validation);
  const [saving, setSaving] = useState(false);

  // "Try it": the run, and the text it ran (its results stand on the cards only while the draft
  // is that text).
  const t = useTry();
  const { tryId, setTryId, tried } = t;
  const [triedText, setTriedText] = useState("");
  const [starting, setStarting] = useState(false);
  useEffect(() => {
    // A try still running from before a reload is followed again.
    api
      .taskRuns({ task: "draft", status: "running" }, 1, 0)
      .then((page) => {
        const r = page.items[0];
        if (r) {
          setTriedText(original.text);
          setTryId(r.id);
        }
      })
      .catch(() => undefined);
  }, []);
  const liveDevice = tried.runningNow && tried.run ? tried.run.device : device;
  useEffect(() => onLiveDevice(liveDevice), [liveDevice]);
  const stale = tryId !== null && triedText !== draft.text;
  const results = stale ? undefined : t.results;

  // The draft's own warnings follow the steps they name through the edits, until a try runs their
  // step as written (then the selector does match: the warning was wrong).
  const pinned = useMemo(() => pinWarnings(original.value, kept.warnings), [original, kept.warnings]);
  const [proven, setProven] = useState<ReadonlySet<PinnedWarning>>(() => new Set());
  useEffect(() => {
    if (!results || !draft.value) return;
    const now = provenByTry(draft.value, pinned.filter((p) => !proven.has(p)), results);
    if (now.length) setProven((was) => new Set([...was, ...now]));
  }, [results]);
  const standing = useMemo(() => pinned.filter((p) => !proven.has(p)), [pinned, proven]);
  const carried = useMemo(() => (draft.value ? placeWarnings(draft.value, standing) : []), [draft.value, standing]);
  // A refused try or save shows its problems until the validator answers for a newer text.
  const issues: Issues = { errors: checked.errors, warnings: mergeIssues(checked.warnings, carried) };
  const errors = issues.errors.length;

  const tryIt = async () => {
    if (!draft.value || starting) return;
    setStarting(true);
    setBanner("");
    try {
      const run = await api.tryDraft(draft.value);
      setTriedText(draft.text);
      setTryId(run.id);
    } catch (e) {
      refuse(e);
    } finally {
      setStarting(false);
    }
  };

  const discard = async () => {
    if (!window.confirm("Discard this draft? It is not a task; it cannot be brought back.")) return;
    try {
      await api.discardDraft();
      release();
      onClosed();
    } catch (e) {
      setBanner(errorText(e));
    }
  };

  return (
    <div class="page-body draft-review" data-testid="draft-review">
      <section class="draft-head" aria-label="The draft">
        <div>
          <strong>Draft</strong> from “<span data-testid="draft-prompt">{kept.prompt}</span>” · explored on <span class="mono">{kept.device}</span> ·{" "}
          <span title={dateTime(kept.created)}>{relative(kept.created)}</span>
        </div>
        {proven.size > 0 && (
          <div class="small draft-proven" data-testid="draft-proven-note">
            ✓ The try found {proven.size === 1 ? "the control a warning was about" : `the controls ${proven.size} warnings were about`}: {proven.size === 1 ? "it is" : "they are"}{" "}
            cleared.
          </div>
        )}
        {carried.length > 0 && (
          <div class="small draft-unseen" data-testid="draft-warnings-note">
            ! {carried.length} {carried.length === 1 ? "warning" : "warnings"} from the exploration, marked at {carried.length === 1 ? "its step" : "their steps"}: a selector no
            control matched while the AI explored may fail when the task runs — check it, or try the draft.
          </div>
        )}
      </section>
      <div class="editor-bar">
        <ValidityChip validation={validation} errors={errors} />
        {dirty && (
          <span class="muted small" data-testid="unsaved">
            edited
          </span>
        )}
        <span class="grow" />
        {dirty && (
          <button type="button" class="btn btn-ghost btn-small" onClick={() => setDraft(original)}>
            Undo my edits
          </button>
        )}
        <button
          type="button"
          class="btn"
          onClick={() => void tryIt()}
          disabled={starting || tried.runningNow || errors > 0 || !draft.value}
          title="Run the draft as it is now once on its device, before saving"
          data-testid="try-draft"
        >
          {starting ? "Starting…" : "▶ Try it"}
        </button>
        <button type="button" class="btn btn-primary" onClick={() => setSaving(true)} disabled={saving || errors > 0 || !draft.value} data-testid="save-as-task">
          💾 Save as task…
        </button>
        <button type="button" class="btn btn-ghost btn-danger-text" onClick={() => void discard()} data-testid="discard-draft">
          Discard
        </button>
      </div>
      {banner && (
        <div class="banner banner-error" role="alert" data-testid="editor-banner">
          {banner}
        </div>
      )}
      {saving && (
        <SaveAsTask
          file={draft.value ?? {}}
          onRefused={setRefused}
          onCancel={() => setSaving(false)}
          onSaved={(task) => {
            release();
            onClosed();
            navigate(`/tasks/${encodeURIComponent(task.id)}`);
          }}
        />
      )}
      <TryPanel t={t} title="Try run" staleNote={stale ? "the draft changed since; try again to see its steps on the cards" : undefined} openImage={onOpenImage} />
      <TaskFileEditor draft={draft} onChange={setDraft} issues={issues} devices={devices} defaultDevice={kept.device} results={results} />
    </div>
  );
}
