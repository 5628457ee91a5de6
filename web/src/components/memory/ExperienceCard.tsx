// One experience of the library: its title, the task it is for, the recipe, how often it was
// recalled and when last; the audit's suggestion with its score and reason, waiting for the
// person's decision (Confirm delete / Keep); edit, delete, and the audit's reviews of it. Every
// text is shown as text: recipes and reasons come from the model.
import { useState } from "preact/hooks";
import { api, errorText, type ExperienceBody } from "../../api";
import { dateTime, relative, shortId } from "../../format";
import { useSubmit } from "../../hooks/useSubmit";
import type { Experience, ExperienceReview } from "../../types";
import { DialogButtons, FormError } from "../FormFields";
import { pendingChanged } from "../PageNav";

/** Props of the card. */
export interface ExperienceCardProps {
  experience: Experience;
  /** It changed (edited, kept): the new version. */
  onChanged: (e: Experience) => void;
  /** It was deleted. */
  onDeleted: () => void;
  onError: (message: string) => void;
}

/** The card. */
export function ExperienceCard({ experience: x, onChanged, onDeleted, onError }: ExperienceCardProps) {
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const pending = x.audit.state === "pending";

  const remove = async () => {
    const question = pending
      ? `Delete “${x.title}” as the audit suggests? It is no longer recalled; this cannot be undone.`
      : `Delete the experience “${x.title}”? It is no longer recalled; this cannot be undone.`;
    if (!window.confirm(question)) return;
    setBusy(true);
    try {
      await api.deleteExperience(x.id);
      pendingChanged();
      onDeleted();
    } catch (e) {
      onError(errorText(e));
      setBusy(false);
    }
  };

  const keep = async () => {
    setBusy(true);
    try {
      onChanged(await api.keepExperience(x.id));
      pendingChanged();
    } catch (e) {
      onError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class={`experience${pending ? " experience-pending" : ""}`} data-testid="experience" data-id={x.id} data-state={x.audit.state}>
      <header class="experience-head">
        <strong class="experience-title" data-testid="experience-title">
          {x.title}
        </strong>
        {x.audit.state === "kept" && (
          <span class="chip chip-success" title="You kept it: the audit does not suggest deleting it again">
            kept
          </span>
        )}
        <span class="grow" />
        <span class="muted small" data-testid="experience-usage">
          {x.hits === 0 ? "never recalled" : `recalled ${x.hits} ${x.hits === 1 ? "time" : "times"}`}
          {x.last_used_at && (
            <span title={dateTime(x.last_used_at)}>
              {" "}
              · last used {relative(x.last_used_at)}
            </span>
          )}
        </span>
      </header>
      {pending && (
        <div class="audit-suggestion" role="note" data-testid="audit-suggestion">
          <div>
            🗑 <strong>The audit suggests deleting it</strong>
            {x.audit.score != null && <span class="muted"> · score {x.audit.score}/100</span>}
            {x.audit.reason && (
              <>
                : <span data-testid="audit-reason">{x.audit.reason}</span>
              </>
            )}
          </div>
          <div class="audit-buttons">
            <button class="btn btn-danger btn-small" onClick={() => void remove()} disabled={busy} data-testid="confirm-delete">
              Confirm delete
            </button>
            <button class="btn btn-small" onClick={() => void keep()} disabled={busy} data-testid="keep">
              Keep it
            </button>
          </div>
        </div>
      )}
      {editing ? (
        <ExperienceForm
          initial={x}
          onSave={async (body) => {
            const saved = await api.replaceExperience(x.id, body);
            setEditing(false);
            onChanged(saved);
          }}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <>
          <div class="experience-task">
            <span class="muted small">Task</span> <span data-testid="experience-task">{x.task}</span>
          </div>
          <div class="experience-recipe" data-testid="experience-recipe">
            {x.recipe}
          </div>
          {!pending && x.audit.reason && (
            <div class="muted small" data-testid="audit-review">
              Audit{x.audit.audited_at ? ` ${relative(x.audit.audited_at)}` : ""}: {x.audit.state === "kept" ? "kept by you" : "keep"}
              {x.audit.score != null && ` · score ${x.audit.score}/100`} — {x.audit.reason}
            </div>
          )}
          <footer class="experience-foot">
            <span class="muted small">
              {x.source_run ? <>from run {shortId(x.source_run)}</> : "written by hand"} · <span title={dateTime(x.created_at)}>created {relative(x.created_at)}</span>
              {x.updated_at !== x.created_at && <span title={dateTime(x.updated_at)}> · changed {relative(x.updated_at)}</span>}
            </span>
            <span class="grow" />
            <Reviews id={x.id} onError={onError} />
            <button class="btn btn-ghost btn-small" onClick={() => setEditing(true)} data-testid="experience-edit">
              Edit
            </button>
            {!pending && (
              <button class="btn btn-ghost btn-small btn-danger-text" onClick={() => void remove()} disabled={busy} data-testid="experience-delete">
                Delete
              </button>
            )}
          </footer>
        </>
      )}
    </article>
  );
}

/** The audit's reviews of one experience, read when opened. */
function Reviews({ id, onError }: { id: string; onError: (m: string) => void }) {
  const [reviews, setReviews] = useState<ExperienceReview[] | null>(null);
  const open = async (e: Event) => {
    if (!(e.currentTarget as HTMLDetailsElement).open || reviews) return;
    try {
      setReviews((await api.experience(id)).reviews);
    } catch (err) {
      onError(errorText(err));
    }
  };
  return (
    <details class="reviews" onToggle={(e) => void open(e)}>
      <summary class="small">Audit history</summary>
      {!reviews ? (
        <p class="muted small">Loading…</p>
      ) : reviews.length === 0 ? (
        <p class="muted small">Not reviewed yet.</p>
      ) : (
        <ul class="plain small" data-testid="reviews">
          {reviews.map((r) => (
            <li key={`${r.audit_id}-${r.created_at}`}>
              <span title={dateTime(r.created_at)}>{relative(r.created_at)}</span>: <strong>{r.verdict}</strong> · score {r.score}/100 — {r.reason}
              {r.decision && (
                <span class="muted">
                  {" "}
                  ({r.decision} by a person{r.decided_at ? ` ${relative(r.decided_at)}` : ""})
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}

/** Writing or editing an experience: the task, a title, the recipe; the server's problems at
 * their fields. */
export function ExperienceForm(p: { initial?: Experience; onSave: (body: ExperienceBody) => Promise<void>; onCancel: () => void }) {
  const [task, setTask] = useState(p.initial?.task ?? "");
  const [title, setTitle] = useState(p.initial?.title ?? "");
  const [recipe, setRecipe] = useState(p.initial?.recipe ?? "");
  const { error, problems, busy, submit } = useSubmit();

  const field = (id: string, label: string, value: string, set: (v: string) => void, rows: number, max: number, hint: string) => (
    <div class={`pfield${problems[id] ? " pfield-error" : ""}`}>
      <label for={`exp-${id}`}>{label}</label>
      <textarea id={`exp-${id}`} rows={rows} maxLength={max} value={value} placeholder={hint} onInput={(e) => set(e.currentTarget.value)} data-testid={`exp-${id}`} />
      {problems[id] && <div class="issue issue-error small">{problems[id]}</div>}
    </div>
  );

  return (
    <form
      class="form experience-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit(() => p.onSave({ task, recipe, ...(title.trim() ? { title } : {}) }));
      }}
      noValidate
      data-testid="experience-form"
    >
      {field("task", "Task", task, setTask, 2, 2000, "the task it helps with, as a person would ask for it")}
      {field("title", "Title", title, setTitle, 1, 200, "a short name (optional: the task's start)")}
      {field("recipe", "Recipe", recipe, setRecipe, 6, 2000, "what worked, step by step, naming controls by their labels — no coordinates")}
      <FormError error={error} testId="experience-form-error" />
      <DialogButtons onCancel={p.onCancel} busy={busy} label="Save" busyLabel="Saving…" disabled={!task.trim() || !recipe.trim()} testId="experience-save" />
    </form>
  );
}
