// Every page of the console (router.tsx: the chat, designer mode, the Tasks pages, the memory, the
// login) at a phone's width and a laptop's (the two projects of playwright.config.ts): the page
// never scrolls sideways, no part of a page overflows its box sideways, the top bar's parts never
// overlap, dialogs fit the screen; on a phone the sidebar is a drawer.
import { expect, test, type Locator, type Page } from "@playwright/test";
import { call, docScreenshot, isNarrow, lastAnswer, login, nav, ORDER_PAGE, openSidebar, runToEnd, send, serverUrl, unique, waitIdle } from "./helpers";

/** What is wrong with the layout of the page shown: sideways scrolling, a box that overflows
 * sideways, top bar parts that overlap, a dialog larger than the screen. */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.getAttribute("data-testid") ? `[data-testid=${el.getAttribute("data-testid")}]` : ""}${
        el.className && typeof el.className === "string" ? `.${el.className.trim().split(/\s+/).join(".")}` : ""
      } “${(el.textContent ?? "").trim().slice(0, 30)}”`;
    const shown = (el: Element) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
    };
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth) out.push(`the page scrolls sideways: ${doc.scrollWidth} px in ${doc.clientWidth} px`);
    // The page's boxes: what they hold fits their width (else it is cut off or scrolls sideways).
    const boxes = "main, .run-main, .page, .page-body, .messages, .topbar, .topbar-tools, .composer, .live, .sidebar, .tabs, dialog[open]";
    for (const el of document.querySelectorAll(boxes)) {
      if (!shown(el) || el.scrollWidth <= el.clientWidth + 1) continue;
      // The culprits: the outermost parts that run past the box's right edge.
      const edge = el.getBoundingClientRect().left + el.clientWidth + 1;
      const past = [...el.querySelectorAll("*")].filter(
        (c) => shown(c) && c.getBoundingClientRect().right > edge && !(c.parentElement && c.parentElement !== el && c.parentElement.getBoundingClientRect().right > edge),
      );
      out.push(`${name(el)} overflows sideways: ${el.scrollWidth} px in ${el.clientWidth} px (past its edge: ${past.slice(0, 3).map(name).join("; ")})`);
    }
    // The top bar's parts, two by two: none overlaps another.
    for (const bar of document.querySelectorAll("header.topbar")) {
      const parts = [...bar.querySelectorAll(":scope > *, :scope > .topbar-title > *, :scope > .topbar-tools > *")].filter(
        (el) => shown(el) && !el.matches(".topbar-title, .topbar-tools"),
      );
      for (let i = 0; i < parts.length; i++) {
        for (let j = i + 1; j < parts.length; j++) {
          const a = parts[i].getBoundingClientRect();
          const b = parts[j].getBoundingClientRect();
          const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          if (w > 1 && h > 1) out.push(`${name(parts[i])} overlaps ${name(parts[j])} in the top bar`);
        }
      }
      const r = bar.getBoundingClientRect();
      if (r.right > window.innerWidth + 1) out.push(`the top bar runs past the screen's right edge (${r.right} px)`);
    }
    // A dialog fits the screen.
    for (const d of document.querySelectorAll("dialog[open]")) {
      const r = d.getBoundingClientRect();
      if (r.left < 0 || r.top < 0 || r.right > window.innerWidth + 1 || r.bottom > window.innerHeight + 1) {
        out.push(`${name(d)} does not fit the screen: ${Math.round(r.left)},${Math.round(r.top)} – ${Math.round(r.right)},${Math.round(r.bottom)}`);
      }
    }
    return out;
  });
}

/** Checks the page shown once `ready` is visible. */
async function checkPage(page: Page, what: string, ready: Locator): Promise<void> {
  await expect(ready.first(), what).toBeVisible();
  expect(await layoutProblems(page), what).toEqual([]);
}

test("every page fits the screen: no sideways scrolling, no overlapping top bar, dialogs inside", async ({ page }) => {
  test.setTimeout(180_000);
  // Logged out: the login page.
  await page.goto(serverUrl());
  await checkPage(page, "the login page", page.getByRole("button", { name: "Log in" }));

  await login(page);
  // What the pages show: a conversation with a step, a task with a schedule and a run, an action.
  await send(page, "E2E markdown: take a screenshot and summarise");
  await expect(lastAnswer(page).getByTestId("answer")).toContainText("E2E-MARKDOWN-END");
  await waitIdle(page);
  const conversation = new URL(page.url()).pathname;
  const name = unique("E2E layout, a task whose name is long enough to need the whole width of a top bar");
  const task = await call(page, "POST", "/api/tasks", {
    name,
    device: "browser",
    variables: { customer: "ACME GmbH" },
    steps: [
      { type: "open_app", url: ORDER_PAGE },
      { type: "input_text", selector: { text: "Customer", type: "edit" }, text: "{{customer}}", note: "the customer's name" },
      { type: "click", selector: { text: "Save order", type: "button", match: "exact" } },
    ],
  });
  expect(task.status, JSON.stringify(task.body)).toBe(201);
  const id = encodeURIComponent(task.body.id);
  expect((await call(page, "POST", `/api/tasks/${id}/schedules`, { kind: "cron", expr: "0 8 * * 1", tz: "Europe/Berlin" })).status).toBe(201);
  const run = await runToEnd(page, task.body.id);
  const action = await call(page, "POST", "/api/memory/actions", {
    name: unique("E2E layout action"),
    description: "Types the customer's name into the order form and saves it",
    steps: [{ type: "click", selector: { text: "Save order", type: "button" } }],
  });
  expect(action.status, JSON.stringify(action.body)).toBe(201);

  const pages: [string, string, string][] = [
    ["/", "the chat, a new conversation", "prompt"],
    [conversation, "the chat, a conversation", "msg-assistant"],
    ["/designer", "designer mode", "prompt"],
    ["/tasks", "the task list", "task-row"],
    ["/tasks/new", "a new task", "task-editor"],
    [`/tasks/${id}`, "a task's runs", "run-row"],
    [`/tasks/${id}/edit`, "a task's steps", "step-card"],
    [`/tasks/${id}/schedules`, "a task's schedules", "schedule-words"],
    ["/task-runs", "every run", "run-row"],
    [`/task-runs/${encodeURIComponent(run)}`, "a task run", "run-step"],
    ["/memory", "the experiences", "experiences-page"],
    ["/memory/actions", "the actions", "action-row"],
    ["/memory/actions/new", "a new action", "step-editor"],
    [`/memory/actions/${encodeURIComponent(action.body.id)}`, "an action", "step-card"],
    ["/fleet", "the fleet (alone, on SQLite)", "fleet-alone"],
  ];
  for (const [path, what, ready] of pages) {
    await page.goto(`${serverUrl()}${path}`);
    await checkPage(page, what, page.getByTestId(ready));
  }

  // The dialogs: the settings, running a task, picking a control from the device.
  await page.goto(`${serverUrl()}/`);
  await page.getByTestId("open-settings").click();
  await checkPage(page, "the settings dialog", page.locator("dialog[open]"));
  await page.keyboard.press("Escape");
  await page.goto(`${serverUrl()}/tasks/${id}`);
  await page.getByTestId("run-now").click();
  await checkPage(page, "the run dialog", page.getByTestId("run-dialog"));
  await page.keyboard.press("Escape");
  await page.goto(`${serverUrl()}/tasks/${id}/edit`);
  await page.locator('[data-testid="step-card"][data-path="steps[1]"]').getByTestId("pick-from-device").click();
  await checkPage(page, "the picker", page.getByTestId("picker"));
  await page.keyboard.press("Escape");

  // The action library as cards (the other pages' narrow screenshots come from their specs).
  if (isNarrow(page)) {
    await page.goto(`${serverUrl()}/memory/actions`);
    await expect(page.getByTestId("action-row").first()).toBeVisible();
    await docScreenshot(page, "memory-actions");
  }
  // What it made goes, so the other specs' lists and screenshots stay as they were.
  expect((await call(page, "DELETE", `/api/tasks/${id}`)).status).toBe(204);
  expect((await call(page, "DELETE", `/api/memory/actions/${encodeURIComponent(action.body.id)}`)).status).toBe(204);
});

test("on a phone the sidebar is a drawer: ☰ opens it over the page, navigation, Escape and a click outside close it, the focus goes in and back", async ({ page }) => {
  test.skip(!isNarrow(page), "a wide screen shows the sidebar beside the page");
  await login(page);
  const menu = page.getByTestId("menu-button");
  const sidebar = page.getByTestId("sidebar");
  await expect(menu).toBeVisible();
  await expect(sidebar).toBeHidden();
  await expect(menu).toHaveAttribute("aria-expanded", "false");

  // ☰ opens it over the page, the focus on the current page's link; Escape closes it, the focus
  // back on ☰.
  await menu.click();
  await expect(sidebar).toBeVisible();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await expect(page.getByTestId("nav-chat")).toBeFocused();
  const box = (await sidebar.boundingBox())!;
  expect(box.x).toBe(0);
  expect(box.width).toBeLessThan(page.viewportSize()!.width);
  // The page behind takes no focus while it is open: Tab stays in the drawer.
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => !!document.activeElement?.closest("#sidebar"))).toBe(true);
  }
  await docScreenshot(page, "drawer");
  await page.emulateMedia({ colorScheme: "dark" });
  await docScreenshot(page, "drawer-dark");
  await page.emulateMedia({ colorScheme: "light" });
  await page.keyboard.press("Escape");
  await expect(sidebar).toBeHidden();
  await expect(menu).toBeFocused();

  // A click outside it (on the dimmed page) closes it.
  await menu.click();
  await expect(sidebar).toBeVisible();
  await page.mouse.click(page.viewportSize()!.width - 20, page.viewportSize()!.height / 2);
  await expect(sidebar).toBeHidden();
  await expect(menu).toBeFocused();

  // So does its ✕.
  await menu.click();
  await page.getByTestId("menu-close").click();
  await expect(sidebar).toBeHidden();
  await expect(menu).toBeFocused();

  // A page link navigates and closes it; the new page's ☰ has the focus.
  await nav(page, "tasks");
  await expect(page.getByTestId("task-list")).toBeVisible();
  await expect(sidebar).toBeHidden();
  await expect(menu).toBeFocused();

  // Choosing a conversation closes it too, and the message box takes the focus.
  await page.goto(`${serverUrl()}/`);
  await send(page, "E2E quick: answer at once");
  await waitIdle(page);
  await openSidebar(page);
  await page.getByRole("button", { name: "+ New conversation" }).click();
  await expect(sidebar).toBeHidden();
  await expect(page.getByTestId("prompt")).toBeFocused();
  await openSidebar(page);
  await page.getByTestId("conv").first().locator(".conv-main").click();
  await expect(sidebar).toBeHidden();
  await expect(page.getByTestId("msg-assistant").first()).toBeVisible();
  await expect(page.getByTestId("prompt")).toBeFocused();
});

test("on a laptop's screen the sidebar stands beside the page and there is no ☰", async ({ page }) => {
  test.skip(isNarrow(page), "a phone's screen has the drawer");
  await login(page);
  await expect(page.getByTestId("sidebar")).toBeVisible();
  await expect(page.getByTestId("menu-button")).toBeHidden();
  const side = (await page.getByTestId("sidebar").boundingBox())!;
  const main = (await page.locator("main").boundingBox())!;
  expect(side.x + side.width).toBeLessThanOrEqual(main.x + 1);
});
