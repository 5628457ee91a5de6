// The 🎬 action library: each action's name, aliases, what it does, the app, its steps and its
// use (how often recalled or run, last used); search by name, alias or description on the
// server; open one in the step editor, try it, delete it, or write one by hand.
import { useState } from "preact/hooks";
import { api, errorText } from "../../api";
import { dateTime, relative } from "../../format";
import { useSearchedPage } from "../../hooks/useSearchedPage";
import { Link, navigate } from "../../router";
import type { LibraryAction } from "../../types";
import { ErrorBanner } from "../FormFields";
import { ListTopbar } from "../ListTopbar";
import { countSteps } from "../steps/StepEditor";
import { Pager } from "../common/Pager";

const PAGE = 50;

/** The page. */
export function ActionList() {
  const [banner, setBanner] = useState("");
  const { q, search, offset, setOffset, data, load } = useSearchedPage((text, at) => api.actions(text, PAGE, at), 15_000, setBanner);

  const remove = async (a: LibraryAction) => {
    if (!window.confirm(`Delete the action “${a.name}”? Runs no longer recall it or run it.`)) return;
    try {
      await api.deleteAction(a.id);
      void load();
    } catch (e) {
      setBanner(errorText(e));
    }
  };

  const total = data?.total ?? 0;
  return (
    <div class="page" data-testid="action-list">
      <ListTopbar
        title="🎬 Actions"
        total={data ? total : null}
        noun={["action", "actions"]}
        q={q}
        onSearch={search}
        placeholder="Search name, alias, description"
        searchLabel="Search actions"
        searchTestId="action-search"
        newLabel="+ New action"
        onNew={() => navigate("/memory/actions/new")}
        newTestId="new-action"
      />
      <ErrorBanner message={banner} onDismiss={() => setBanner("")} />
      <div class="page-body">
        <p class="muted small page-intro">
          Named step lists with element selectors, distilled from runs that worked or written here. A run whose task names one gets it in its prompt and can play it in one
          call (<code>run_action</code>).
        </p>
        {data && data.items.length === 0 && (
          <div class="empty">
            {q ? (
              <p>No action's name, alias or description contains “{q}”.</p>
            ) : (
              <>
                <p>No actions yet.</p>
                <p class="muted small">After a chat run that completed, deft keeps up to three of its successful step sequences here.</p>
              </>
            )}
          </div>
        )}
        {data && data.items.length > 0 && (
          <table class="table actions-table table-cards">
            <thead>
              <tr>
                <th>Name</th>
                <th>What it does</th>
                <th>Steps</th>
                <th>Used</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((a) => (
                <ActionRow key={a.id} action={a} onDelete={() => void remove(a)} />
              ))}
            </tbody>
          </table>
        )}
        <Pager offset={offset} total={total} size={PAGE} onOffset={setOffset} />
      </div>
    </div>
  );
}

/** One action's row. */
function ActionRow({ action: a, onDelete }: { action: LibraryAction; onDelete: () => void }) {
  const href = `/memory/actions/${encodeURIComponent(a.id)}`;
  return (
    <tr data-testid="action-row" data-name={a.name}>
      <td class="card-title">
        <Link href={href} class="task-name" data-testid="action-name">
          {a.name}
        </Link>
        {a.aliases.length > 0 && (
          <div class="aliases" data-testid="action-aliases">
            {a.aliases.map((x) => (
              <span key={x} class="chip alias">
                {x}
              </span>
            ))}
          </div>
        )}
      </td>
      <td class="small" data-label="What it does">
        {a.description || <span class="muted">—</span>}
        {a.app && <div class="muted">in {a.app}</div>}
      </td>
      <td class="small" data-label="Steps">{countSteps(a.steps)}</td>
      <td class="small" data-label="Used" data-testid="action-usage">
        {a.hits === 0 ? <span class="muted">never</span> : `${a.hits}×`}
        {a.last_used_at && (
          <div class="muted" title={dateTime(a.last_used_at)}>
            {relative(a.last_used_at)}
          </div>
        )}
      </td>
      <td class="row-actions">
        <button class="btn btn-small" onClick={() => navigate(`${href}?try=1`)} aria-label={`Try ${a.name} on a device`}>
          ▶ Try
        </button>
        <button class="btn btn-ghost btn-small" onClick={() => navigate(href)} aria-label={`Edit ${a.name}`}>
          Edit
        </button>
        <button class="btn btn-ghost btn-small btn-danger-text" onClick={onDelete} aria-label={`Delete ${a.name}`} data-testid="action-delete">
          Delete
        </button>
      </td>
    </tr>
  );
}
