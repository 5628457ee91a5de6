// A task's folder (the existing folders offered), its tags as chips (Enter or a comma adds the
// typed tag, Backspace in the empty field or a chip's ✕ removes one) and the note a save records in
// the history (what changed). Saved with the task's file.
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api";
import type { SaveMeta } from "../../task-versions";

/** The fields; `meta` is what the next save sends. */
export function TaskMetaFields({ meta, onMeta, stored }: { meta: SaveMeta; onMeta: (m: SaveMeta) => void; stored: boolean }) {
  const [folders, setFolders] = useState<string[]>([]);
  const [typed, setTyped] = useState("");
  useEffect(() => {
    api
      .taskFolders()
      .then((f) => setFolders(f.items.map((i) => i.folder)))
      .catch(() => {});
  }, []);

  const add = (text: string) => {
    const tag = text.trim();
    setTyped("");
    if (!tag || meta.tags.some((t) => t.toLowerCase() === tag.toLowerCase())) return;
    onMeta({ ...meta, tags: [...meta.tags, tag] });
  };
  const remove = (tag: string) => onMeta({ ...meta, tags: meta.tags.filter((t) => t !== tag) });
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Enter" || e.key === ",") {
      e.preventDefault();
      add(typed);
    } else if (e.key === "Backspace" && typed === "" && meta.tags.length) {
      remove(meta.tags[meta.tags.length - 1]);
    }
  };

  return (
    <fieldset class="task-meta" data-testid="task-meta">
      <legend class="sr-only">Folder, tags and note</legend>
      <label class="task-meta-field">
        <span class="small muted">Folder</span>
        <input
         
          list="task-folders"
          value={meta.folder}
          placeholder="top (e.g. finance/nightly)"
          onInput={(e) => onMeta({ ...meta, folder: (e.target as HTMLInputElement).value })}
          data-testid="task-folder"
        />
        <datalist id="task-folders">
          {folders.map((f) => (
            <option key={f} value={f} />
          ))}
        </datalist>
      </label>
      <div class="task-meta-field">
        <label class="small muted" for="task-tag-input">
          Tags
        </label>
        <div class="tag-box">
          {meta.tags.map((t) => (
            <span key={t} class="chip tag-chip" data-testid="task-tag">
              {t}
              <button type="button" class="chip-x" aria-label={`Remove the tag ${t}`} onClick={() => remove(t)}>
                ✕
              </button>
            </span>
          ))}
          <input
            id="task-tag-input"
            class="tag-input"
            value={typed}
            placeholder={meta.tags.length ? "" : "add a tag, Enter"}
            onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
            onKeyDown={onKey}
            onBlur={() => typed.trim() && add(typed)}
            data-testid="task-tag-input"
          />
        </div>
      </div>
      {stored && (
        <label class="task-meta-field task-meta-note">
          <span class="small muted">Note for this save</span>
          <input
           
            value={meta.note}
            maxLength={500}
            placeholder="what changed (shown in the history)"
            onInput={(e) => onMeta({ ...meta, note: (e.target as HTMLInputElement).value })}
            data-testid="task-note"
          />
        </label>
      )}
    </fieldset>
  );
}
