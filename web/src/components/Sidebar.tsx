// The sidebar of every page, a drawer on a narrow screen (styles.css, "narrow screens"): the top
// bar's ☰ button opens it over the page; a navigation (a link, or a choice marked
// `data-closes-drawer`), Escape, a click outside it or its ✕ closes it. While it is open the focus is inside it (the page behind is inert), and closing it gives the
// focus back to the ☰ button.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { usePath } from "../router";
import { NotificationBell } from "./NotificationBell";

/** Below this width the sidebar is a drawer (the same width as styles.css's media query). */
const NARROW = "(max-width: 900px)";

// One drawer at a time: the state lives here, so the top bar's button and the sidebar of any page
// share it without a provider.
let drawerOpen = false;
const listeners = new Set<() => void>();
/** Makes the page behind the open drawer usable again (set while it is open). */
let releasePage: (() => void) | null = null;

function setDrawer(open: boolean): void {
  if (drawerOpen === open) return;
  drawerOpen = open;
  for (const l of listeners) l();
}

/** Whether the drawer is open; re-renders when it opens or closes. */
function useDrawerOpen(): boolean {
  const [open, setOpen] = useState(drawerOpen);
  useEffect(() => {
    const l = () => setOpen(drawerOpen);
    listeners.add(l);
    l();
    return () => {
      listeners.delete(l);
    };
  }, []);
  return open;
}

/** The ☰ button that opens the drawer (first in a page's top bar; shown on narrow screens only),
 * then the notification bell (at every width: it stays reachable while the menu is a drawer). */
export function MenuButton() {
  const open = useDrawerOpen();
  return (
    <>
    <button
      type="button"
      class="btn btn-ghost menu-button"
      aria-label="Open the menu"
      aria-controls="sidebar"
      aria-expanded={open}
      onClick={() => setDrawer(true)}
      data-testid="menu-button"
    >
      ☰
    </button>
    <NotificationBell />
    </>
  );
}

/** Closes the drawer and gives the focus back to the ☰ button of the page shown. The page behind
 * is usable again at once, so what a click in the drawer does next may move the focus on (a
 * conversation chosen focuses the message box). */
function closeDrawer(): void {
  if (!drawerOpen) return;
  releasePage?.();
  releasePage = null;
  setDrawer(false);
  const toMenu = () => document.querySelector<HTMLElement>('[data-testid="menu-button"]')?.focus();
  toMenu();
  // After a navigation the ☰ that had it is gone: the next page's takes it, once that shows (unless
  // the choice moved the focus on itself).
  requestAnimationFrame(() => {
    const now = document.activeElement;
    if (!now || now === document.body || now.closest("#sidebar")) toMenu();
  });
}

/** The sidebar: beside the page on a wide screen, a drawer over it on a narrow one. */
export function Sidebar({ children }: { children: ComponentChildren }) {
  const open = useDrawerOpen();
  const path = usePath();
  const ref = useRef<HTMLElement>(null);

  // A navigation (a page link, a conversation chosen) closes it; so does a screen grown wide.
  useEffect(() => closeDrawer(), [path]);
  useEffect(() => {
    const narrow = window.matchMedia(NARROW);
    const grown = () => {
      if (!narrow.matches) setDrawer(false);
    };
    narrow.addEventListener("change", grown);
    return () => narrow.removeEventListener("change", grown);
  }, []);

  // Open: the focus moves in (to the current page's link), Escape closes, the page behind is inert.
  useEffect(() => {
    const aside = ref.current;
    if (!open || !aside) return;
    const first = aside.querySelector<HTMLElement>('[aria-current="page"]') ?? aside.querySelector<HTMLElement>("a, button, input, select");
    first?.focus();
    const behind = [...(aside.parentElement?.children ?? [])].filter((el) => el !== aside && !el.classList.contains("drawer-backdrop"));
    for (const el of behind) el.setAttribute("inert", "");
    releasePage = () => {
      for (const el of behind) el.removeAttribute("inert");
    };
    const key = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      closeDrawer();
    };
    document.addEventListener("keydown", key);
    return () => {
      releasePage?.();
      releasePage = null;
      document.removeEventListener("keydown", key);
    };
  }, [open]);

  return (
    <>
      <aside
        id="sidebar"
        ref={ref}
        class={open ? "sidebar sidebar-open" : "sidebar"}
        aria-label="Menu"
        // A link, or a choice marked to close it (a conversation, "+ New …"), closes it before it
        // acts: in capture, so the focus the choice moves lands on the page.
        onClickCapture={(e) => {
          if ((e.target as Element).closest("a[href], [data-closes-drawer]")) closeDrawer();
        }}
        data-testid="sidebar"
      >
        <button type="button" class="btn btn-ghost btn-small drawer-close" aria-label="Close the menu" onClick={closeDrawer} data-testid="menu-close">
          ✕
        </button>
        {children}
      </aside>
      {open && <div class="drawer-backdrop" onClick={closeDrawer} data-testid="drawer-backdrop" />}
    </>
  );
}
