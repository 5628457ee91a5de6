// The keys of a small menu (a button's list of `role="menuitem"`s): ↑ / ↓ move between the items,
// wrapping round, and Escape closes the menu (its opener takes the focus back).

/** Handles a keydown inside `menu`; `close` shuts it on Escape. */
export function menuKeys(e: KeyboardEvent, menu: HTMLElement | null, close: () => void): void {
  if (e.key === "Escape") {
    e.preventDefault();
    close();
  } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
    e.preventDefault();
    const items = [...(menu?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    items[(at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length]?.focus();
  }
}
