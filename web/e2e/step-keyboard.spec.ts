// The step editor by keyboard alone: "+ Add step…" is a menu that adds one step on Enter (moving
// through it or typing to narrow it adds nothing), and removing a step keeps the focus in the list;
// a whole task is written, rearranged and saved with the keys, each control it reaches showing its
// focus ring in light and dark mode.
import { expect, test, type Page } from "@playwright/test";
import { call, card, login, nav, serverUrl, unique } from "./helpers";

/** The types of the task's top-level steps, in order. */
async function topTypes(page: Page): Promise<string[]> {
  return page.locator('[data-list="steps"] > ol > li[data-testid="step-card"]').evaluateAll((cards) => cards.map((c) => c.getAttribute("data-type") ?? ""));
}

test("the add menu adds one step per Enter, never while moving or typing; removing keeps the focus in the list", async ({ page }) => {
  await login(page);
  await nav(page, "tasks");
  await page.getByTestId("new-task").click();
  const add = page.getByTestId("add-step").last();

  // ↓ on the button opens the menu and adds nothing; more ↓ move through it; typing narrows it.
  await add.focus();
  await page.keyboard.press("ArrowDown");
  const filter = page.getByTestId("add-step-filter");
  await expect(filter).toBeFocused();
  for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowDown");
  await page.keyboard.type("wait");
  expect(await topTypes(page)).toEqual([]);
  await expect(page.locator('[data-testid="add-step-options"] [aria-selected="true"]')).toHaveAttribute("data-type", "wait");
  // Enter adds the marked type once; the focus goes to the new step.
  await page.keyboard.press("Enter");
  expect(await topTypes(page)).toEqual(["wait"]);
  await expect(page.getByTestId("add-step-popup")).toHaveCount(0);
  await expect(card(page, "steps[0]").getByTestId("step-toggle")).toBeFocused();

  // Enter on the button opens it too; ↓ ↓ Enter adds the third type listed; Escape adds nothing.
  await add.focus();
  await page.keyboard.press("Enter");
  await expect(filter).toBeFocused();
  const third = await page.locator('[data-testid="add-step-options"] [role="option"]').nth(2).getAttribute("data-type");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  expect(await topTypes(page)).toEqual(["wait", third]);
  await add.focus();
  await page.keyboard.press("Enter");
  await page.keyboard.type("key_event");
  await page.keyboard.press("Escape");
  await expect(add).toBeFocused();
  expect(await topTypes(page)).toEqual(["wait", third]);
  // A click on a type adds it.
  await add.click();
  await page.getByTestId("add-step-options").locator('[data-type="notify"]').click();
  expect(await topTypes(page)).toEqual(["wait", third, "notify"]);

  // Removing the first step: the focus moves to the step that took its place …
  await card(page, "steps[0]").getByRole("button", { name: "Remove step 1" }).press("Enter");
  expect(await topTypes(page)).toEqual([third, "notify"]);
  await expect(card(page, "steps[0]").getByTestId("step-toggle")).toBeFocused();
  // … removing the last one, to the step before it …
  await card(page, "steps[1]").getByRole("button", { name: "Remove step 2" }).press("Enter");
  expect(await topTypes(page)).toEqual([third]);
  await expect(card(page, "steps[0]").getByTestId("step-toggle")).toBeFocused();
  // … and removing the only one, to the add menu.
  await card(page, "steps[0]").getByRole("button", { name: "Remove step 1" }).press("Enter");
  expect(await topTypes(page)).toEqual([]);
  await expect(add).toBeFocused();
});

/** Presses Tab (Shift+Tab with `back`) until the focus is on an element matching `selector`; at most
 * `limit` presses. Each control it lands on must show its focus ring. */
async function tabTo(page: Page, selector: string, opts: { back?: boolean; limit?: number } = {}): Promise<void> {
  for (let i = 0; i < (opts.limit ?? 40); i++) {
    await page.keyboard.press(opts.back ? "Shift+Tab" : "Tab");
    if (await page.evaluate((sel) => !!document.activeElement?.matches(sel), selector)) {
      await expectFocusRing(page);
      return;
    }
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** The focused control's ring, in light and in dark mode: a solid outline at least 2 px wide whose
 * colour stands out (3:1 or more) from the background behind the control. */
async function expectFocusRing(page: Page): Promise<void> {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const ring = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const style = getComputedStyle(el);
      /** [r, g, b, alpha] of a computed colour (rgb()/rgba() or color(srgb …)). */
      const rgba = (c: string): number[] => {
        const srgb = c.match(/^color\(srgb ([\d.]+) ([\d.]+) ([\d.]+)(?: \/ ([\d.]+))?\)$/);
        if (srgb) return [Number(srgb[1]) * 255, Number(srgb[2]) * 255, Number(srgb[3]) * 255, srgb[4] === undefined ? 1 : Number(srgb[4])];
        const m = c.match(/[\d.]+/g)!.map(Number);
        return [m[0], m[1], m[2], m[3] ?? 1];
      };
      const luminance = ([r, g, b]: number[]) => {
        const lin = (v: number) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
      };
      // What is behind the control: the first ancestor with a background of its own.
      let behind = "rgb(255, 255, 255)";
      for (let p = el.parentElement; p; p = p.parentElement) {
        const bg = getComputedStyle(p).backgroundColor;
        if (rgba(bg)[3] > 0.5) {
          behind = bg;
          break;
        }
      }
      if (behind === "rgb(255, 255, 255)" && rgba(getComputedStyle(document.body).backgroundColor)[3] > 0.5) behind = getComputedStyle(document.body).backgroundColor;
      const [a, b] = [luminance(rgba(style.outlineColor)), luminance(rgba(behind))];
      return {
        what: `${el.tagName.toLowerCase()} “${(el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 40)}”`,
        style: style.outlineStyle,
        width: parseFloat(style.outlineWidth),
        contrast: Math.round(((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)) * 10) / 10,
      };
    });
    expect(ring.style, `${ring.what} (${scheme})`).toBe("solid");
    expect(ring.width, `${ring.what} (${scheme})`).toBeGreaterThanOrEqual(2);
    expect(ring.contrast, `${ring.what} (${scheme})`).toBeGreaterThanOrEqual(3);
  }
  await page.emulateMedia({ colorScheme: null });
}

test("a task written with the keyboard alone: add steps, move one up and down, remove one, edit a selector and a note, save", async ({ page }) => {
  await login(page);
  await page.goto(`${serverUrl()}/tasks/new`);
  await expect(page.getByTestId("task-editor")).toBeVisible();
  const name = unique("E2E keyboard");

  // The name.
  await tabTo(page, '[data-testid="task-name"]');
  await page.keyboard.type(name);

  // A click step: "+ Add step…", its name typed, Enter; the focus lands on the new step, Tab takes
  // it to the selector's text.
  await tabTo(page, '[data-list="steps"] > .add-step-menu [data-testid="add-step"]');
  await page.keyboard.press("Enter");
  await page.keyboard.type("click");
  await expect(page.locator('[data-testid="add-step-options"] [aria-selected="true"]')).toHaveAttribute("data-type", "click");
  await page.keyboard.press("Enter");
  await expect(card(page, "steps[0]").getByTestId("step-toggle")).toBeFocused();
  await expectFocusRing(page);
  await tabTo(page, '[data-path="steps[0]"] [data-testid="selector-text"]');
  await page.keyboard.type("Save order");
  // Its note, behind "Timeout, on error, note": Enter opens it.
  await tabTo(page, '[data-path="steps[0]"] .step-more > summary');
  await page.keyboard.press("Enter");
  await tabTo(page, '[data-path="steps[0]"] [data-field="note"] textarea, [data-path="steps[0]"] [data-field="note"] input');
  await page.keyboard.type("saves the order");

  // Two more: a wait and a notify.
  for (const type of ["wait", "notify"]) {
    await tabTo(page, '[data-list="steps"] > .add-step-menu [data-testid="add-step"]');
    await page.keyboard.press("Enter");
    await page.keyboard.type(type);
    await page.keyboard.press("Enter");
  }
  expect(await topTypes(page)).toEqual(["click", "wait", "notify"]);
  await expect(card(page, "steps[2]").getByTestId("step-toggle")).toBeFocused();

  // The notify goes up twice (Alt+↑), then down once with its ↓ button (Enter).
  await page.keyboard.press("Alt+ArrowUp");
  await page.keyboard.press("Alt+ArrowUp");
  expect(await topTypes(page)).toEqual(["notify", "click", "wait"]);
  await expect(card(page, "steps[0]").getByTestId("step-toggle")).toBeFocused();
  await tabTo(page, '[data-path="steps[0]"] > .step-card-head button[aria-label="Move step 1 down"]');
  await page.keyboard.press("Enter");
  expect(await topTypes(page)).toEqual(["click", "notify", "wait"]);

  // The notify is removed with its ✕ (Enter); the focus stays in the list.
  await tabTo(page, '[data-path="steps[1]"] > .step-card-head button[aria-label="Remove step 2"]');
  await page.keyboard.press("Enter");
  expect(await topTypes(page)).toEqual(["click", "wait"]);
  await expect(card(page, "steps[1]").getByTestId("step-toggle")).toBeFocused();
  await expectFocusRing(page);

  // Ctrl+S saves; the saved task holds what the keys wrote.
  await expect(page.getByTestId("validity")).toHaveText("✓ valid");
  await page.keyboard.press("Control+s");
  await expect(page).toHaveURL(/\/tasks\/[^/]+\/edit$/);
  await expect(page.getByTestId("task-title")).toHaveText(name);
  const id = decodeURIComponent(new URL(page.url()).pathname.split("/")[2]);
  const saved = (await call(page, "GET", `/api/tasks/${encodeURIComponent(id)}`)).body;
  expect(saved.name).toBe(name);
  const steps = saved.definition.steps;
  expect(steps.map((x: { type: string }) => x.type)).toEqual(["click", "wait"]);
  expect(steps[0].selector.text).toBe("Save order");
  expect(steps[0].note).toBe("saves the order");
  expect((await call(page, "DELETE", `/api/tasks/${encodeURIComponent(id)}`)).status).toBe(204);
});
