// The step editor by keyboard alone: "+ Add step…" is a menu that adds one step on Enter (moving
// through it or typing to narrow it adds nothing), and removing a step keeps the focus in the list.
import { expect, test, type Page } from "@playwright/test";
import { card, login, nav } from "./helpers";

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
