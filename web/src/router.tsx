// The console's pages by path — `/` and `/c/ID` the chat, `/tasks…` and `/task-runs…` the Tasks
// pages — without a routing library. A page with unsaved work installs a leave guard: every
// navigation (a link, the back button, closing the tab) asks it first.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** Asks whether the page may be left; false keeps it. */
type Guard = () => boolean;

const guards = new Set<Guard>();
const listeners = new Set<() => void>();
/** The path this module last showed (what the back button returns to when a guard refuses). */
let shown = currentPath();

function currentPath(): string {
  return window.location.pathname + window.location.search;
}

function changed(): void {
  shown = currentPath();
  for (const l of listeners) l();
}

function mayLeave(): boolean {
  for (const g of guards) if (!g()) return false;
  return true;
}

window.addEventListener("popstate", () => {
  if (currentPath() === shown) return;
  if (!mayLeave()) {
    // The browser moved already: put the page's own path back.
    history.pushState(null, "", shown);
    return;
  }
  changed();
});

/** Goes to `path` (pathname and query) unless a leave guard refuses; true when it went. */
export function navigate(path: string, opts: { replace?: boolean } = {}): boolean {
  if (path === currentPath()) return true;
  if (!mayLeave()) return false;
  if (opts.replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  changed();
  return true;
}

/** The page's path (pathname, no query); re-renders on every navigation. */
export function usePath(): string {
  const [path, setPath] = useState(window.location.pathname);
  useEffect(() => {
    const l = () => setPath(window.location.pathname);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
  return path;
}

/** The page's query (`?…`, or ""); re-renders on every navigation, back and forward included. */
export function useSearch(): string {
  const [search, setSearch] = useState(window.location.search);
  useEffect(() => {
    const l = () => setSearch(window.location.search);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
  return search;
}

/** A query parameter of the page's URL. */
export function queryParam(name: string): string | null {
  return new URLSearchParams(window.location.search).get(name);
}

/** While `dirty`, leaving the page (a link, back, reload, closing the tab) asks `question` first.
 * The function it returns lets the page go at once (its work was just saved). */
export function useLeaveGuard(dirty: boolean, question: string): () => void {
  const holding = useRef(dirty);
  holding.current = dirty;
  useEffect(() => {
    const guard: Guard = () => !holding.current || window.confirm(question);
    const unload = (e: BeforeUnloadEvent) => {
      if (!holding.current) return;
      e.preventDefault();
      e.returnValue = "";
    };
    guards.add(guard);
    window.addEventListener("beforeunload", unload);
    return () => {
      guards.delete(guard);
      window.removeEventListener("beforeunload", unload);
    };
  }, [question]);
  return () => {
    holding.current = false;
  };
}

/** Props of a link inside the console. */
export interface LinkProps {
  href: string;
  class?: string;
  children: ComponentChildren;
  title?: string;
  "data-testid"?: string;
  "aria-current"?: "page" | undefined;
}

/** An `<a>` that navigates inside the console (a modified click opens a new tab as usual). */
export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
