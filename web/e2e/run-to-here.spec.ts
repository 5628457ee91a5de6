// Run to here in the task editor (docs/tasks.md "Authoring: run to here") against a real
// `deft serve` and its managed Chromium (the `browser` device): a task that opens a page of a
// page server this spec serves on loopback and follows its link; "Run to here" on the step that
// follows it — reached by keyboard from the step card's menu — runs the first two steps only,
// their results on their cards, and leaves the browser on the page they opened, so the third
// step's "Pick from browser…" lists that page's controls. Nothing is saved: a try, not a run of
// the task.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { call, card, login, nav, unique } from "./helpers";

const PAGES: Record<string, string> = {
  "/start.html": "<!doctype html><title>Start</title><h1>Start</h1><p><a href='/shop.html'>Go to the shop</a></p>",
  "/shop.html":
    "<!doctype html><title>Shop</title><h1>Shop</h1><label>Quantity <input aria-label='Quantity'></label>" +
    "<button onclick=\"document.getElementById('out').textContent='Added'\">Add to basket</button><p id='out'></p>",
};

let server: Server;
let base = "";

test.beforeAll(async () => {
  server = createServer((req, res) => {
    const page = PAGES[(req.url ?? "").split("?")[0]];
    res.writeHead(page ? 200 : 404, { "Content-Type": "text/html; charset=utf-8" });
    res.end(page ?? "not found");
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  // Chromium keeps (and preconnects) sockets to the page server; `close` alone waits for them
  // until they time out, which is what made this hook exceed its limit once.
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
});

test("run to here leaves the browser on the page the steps opened, and the picker lists its controls", async ({ page }) => {
  await login(page);
  await nav(page, "tasks");
  await nav(page, "new-task");
  const name = unique("E2E run to here");
  const file = {
    name,
    device: "browser",
    steps: [
      { type: "open_app", url: `${base}/start.html` },
      { type: "click", selector: { text: "Go to the shop", type: "link", match: "exact" } },
      { type: "click", selector: { text: "Add", match: "contains" } },
    ],
  };
  await page.getByTestId("tab-json").click();
  await page.getByTestId("task-json").fill(JSON.stringify(file, null, 2));
  await expect(page.getByTestId("validity")).toContainText("valid");
  await page.getByTestId("tab-form").click();

  // By keyboard: the card's run menu, its first item "Run to here".
  const menu = card(page, "steps[1]").getByTestId("step-run-menu");
  await menu.focus();
  await page.keyboard.press("Enter");
  await expect(card(page, "steps[1]").getByTestId("run-to-here")).toBeFocused();
  // The menu stays on the screen, 390 px wide included.
  const box = await card(page, "steps[1]").getByTestId("step-run-items").boundingBox();
  const width = page.viewportSize()?.width ?? 0;
  expect(box && box.x >= 0 && box.x + box.width <= width, JSON.stringify({ box, width })).toBe(true);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("try-status")).toHaveText("ok", { timeout: 60_000 });
  await expect(card(page, "steps[0]").getByTestId("step-result")).toHaveAttribute("data-status", "ok");
  await expect(card(page, "steps[1]").getByTestId("step-result")).toHaveAttribute("data-status", "ok");
  await expect(card(page, "steps[2]").getByTestId("step-result")).toHaveCount(0);

  // The picker sees the shop the first two steps opened.
  await card(page, "steps[2]").getByTestId("pick-from-device").click();
  const picker = page.getByTestId("picker");
  await expect(picker.getByTestId("picker-window")).toContainText("Shop");
  await picker.getByTestId("picker-text").fill("Add");
  await picker.getByTestId("picker-find").click();
  await expect(picker.getByTestId("picker-control").filter({ hasText: "Add to basket" })).toHaveCount(1);
  await picker.getByTestId("picker-control").filter({ hasText: "Add to basket" }).getByRole("button", { name: /Use/ }).click();
  await expect(card(page, "steps[2]").getByTestId("selector-text")).toHaveValue("Add to basket");

  // Run this step: the third step alone, on the shop as it is.
  await card(page, "steps[2]").getByTestId("step-run-menu").click();
  await card(page, "steps[2]").getByTestId("run-this-step").click();
  await expect(page.getByTestId("try-status")).toHaveText("ok", { timeout: 60_000 });
  await expect(card(page, "steps[2]").getByTestId("step-result")).toHaveAttribute("data-status", "ok");
  await expect(card(page, "steps[0]").getByTestId("step-result")).toHaveCount(0);

  // None of it is a task: nothing saved under the name.
  const listed = await call(page, "GET", `/api/tasks?q=${encodeURIComponent(name)}`);
  expect(listed.body.total).toBe(0);
});
