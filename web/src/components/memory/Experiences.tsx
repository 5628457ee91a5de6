// The 🧠 experience library: the audit (AuditPanel), the experiences — those the audit suggests
// deleting first, waiting for a decision — searched on the server and filtered by audit state,
// each as an ExperienceCard; write one by hand. Asked again every 15 s, so recalls and the
// distilling of runs that just ended show up.
import { useState } from "preact/hooks";
import { api } from "../../api";
import { useSearchedPage } from "../../hooks/useSearchedPage";
import type { Experience } from "../../types";
import { ErrorBanner } from "../FormFields";
import { ListTopbar } from "../ListTopbar";
import { Pager } from "../common/Pager";
import { AuditPanel } from "./AuditPanel";
import { ExperienceCard, ExperienceForm } from "./ExperienceCard";

const PAGE = 50;

/** The audit-state filters (the API's `state`). */
const STATES = [
  { state: "", label: "All" },
  { state: "pending", label: "Waiting for your decision" },
  { state: "none", label: "Not decided" },
  { state: "kept", label: "Kept" },
] as const;

/** The page. */
export function Experiences() {
  const [state, setState] = useState<string>("");
  const [pending, setPending] = useState<Experience[]>([]);
  const [writing, setWriting] = useState(false);
  const [banner, setBanner] = useState("");
  const fetchPage = async (text: string, at: number) => {
    const [page, waiting] = await Promise.all([
      api.experiences({ q: text, state }, PAGE, at),
      // The suggestions waiting for a decision lead the page, whatever it filters.
      state === "" && at === 0 ? api.experiences({ q: text, state: "pending" }, PAGE, 0) : null,
    ]);
    setPending(waiting?.items ?? []);
    return page;
  };
  const { q, search, offset, setOffset, data, setData, load } = useSearchedPage(fetchPage, 15_000, setBanner, { filter: state });

  /** One experience changed in place (no reload: the page keeps its order while a person works). */
  const replaced = (x: Experience) => {
    const swap = (list: Experience[]) => list.map((y) => (y.id === x.id ? x : y));
    setData((d) => d && { ...d, items: swap(d.items) });
    setPending((p) => (x.audit.state === "pending" ? swap(p) : p.filter((y) => y.id !== x.id)));
  };
  const removed = (id: string) => {
    setData((d) => d && { ...d, items: d.items.filter((y) => y.id !== id), total: Math.max(0, d.total - 1) });
    setPending((p) => p.filter((y) => y.id !== id));
  };

  const pendingIds = new Set(pending.map((x) => x.id));
  const rest = (data?.items ?? []).filter((x) => !pendingIds.has(x.id));
  const total = data?.total ?? 0;
  const card = (x: Experience) => <ExperienceCard key={x.id} experience={x} onChanged={replaced} onDeleted={() => removed(x.id)} onError={setBanner} />;

  return (
    <div class="page" data-testid="experiences-page">
      <ListTopbar
        title="🧠 Experiences"
        total={data ? total : null}
        noun={["experience", "experiences"]}
        q={q}
        onSearch={search}
        placeholder="Search task, title, recipe"
        searchLabel="Search experiences"
        searchTestId="experience-search"
        newLabel="+ New experience"
        onNew={() => setWriting(true)}
        newTestId="new-experience"
        newDisabled={writing}
      />
      <ErrorBanner message={banner} onDismiss={() => setBanner("")} />
      <div class="page-body">
        <p class="muted small page-intro">
          Recipes deft distilled from runs that worked, recalled into the prompt of similar tasks (the best two). The audit reviews them and may suggest deleting one;
          only you delete.
        </p>
        <AuditPanel onPassEnded={() => void load()} onError={setBanner} />
        {writing && (
          <ExperienceForm
            onSave={async (body) => {
              await api.createExperience(body);
              setWriting(false);
              setOffset(0);
              await load();
            }}
            onCancel={() => setWriting(false)}
          />
        )}
        <div class="filters" role="group" aria-label="Show">
          {STATES.map((f) => (
            <button
              key={f.state}
              type="button"
              class={state === f.state ? "chip-btn chip-btn-on" : "chip-btn"}
              aria-pressed={state === f.state}
              onClick={() => {
                setState(f.state);
                setOffset(0);
              }}
              data-testid={`filter-${f.state || "all"}`}
            >
              {f.label}
            </button>
          ))}
        </div>
        {pending.length > 0 && (
          <section class="experience-list" aria-label="Waiting for your decision" data-testid="pending-list">
            {pending.map(card)}
          </section>
        )}
        {data && total === 0 && pending.length === 0 && (
          <div class="empty">
            {q || state ? (
              <p>No experience matches.</p>
            ) : (
              <>
                <p>No experiences yet.</p>
                <p class="muted small">After a chat run that used tools and completed, deft distils what worked into a recipe here. You can also write one.</p>
              </>
            )}
          </div>
        )}
        {rest.length > 0 && (
          <section class="experience-list" aria-label="Experiences" data-testid="experience-list">
            {rest.map(card)}
          </section>
        )}
        <Pager offset={offset} total={total} size={PAGE} onOffset={setOffset} />
      </div>
    </div>
  );
}
