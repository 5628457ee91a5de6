// A run asked for a typed result (POST /api/agent/run with an output schema, as other software
// asks): the console shows the checked value under the answer with its badge — escaped — and
// shows it again after a reload, from the stored conversation.
import { expect, test } from "@playwright/test";
import { call, login, openSidebar } from "./helpers";

test("a typed result shows under its answer, also after a reload", async ({ page }) => {
  await login(page);
  const schema = { type: "object", properties: { total: { type: "number" } }, required: ["total"] };
  const body = { prompt: "E2E typed: add it up", device: "local", output_schema: schema };
  // The one run slot may still be freeing after another test's run: 409 means "in a moment".
  let started = await call(page, "POST", "/api/agent/run", body);
  for (let i = 0; started.status === 409 && i < 40; i++) {
    await page.waitForTimeout(250);
    started = await call(page, "POST", "/api/agent/run", body);
  }
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const run = started.body.run_id as string;
  await expect
    .poll(async () => (await call(page, "GET", `/api/agent/runs/${run}`)).body.status, { timeout: 30_000 })
    .toBe("completed");

  await page.reload();
  await openSidebar(page);
  await page.getByTestId("conv").filter({ hasText: "E2E typed" }).first().getByRole("button").first().click();
  const answer = page.locator(`[data-testid="msg-assistant"][data-run="${run}"]`);
  const result = answer.getByTestId("typed-result");
  await expect(result).toHaveAttribute("data-valid", "true");
  await expect(result.getByTestId("typed-badge")).toHaveText("valid");
  await expect(result.locator("pre")).toContainText('"total": 42');
  // The value is text, never markup.
  await expect(result.locator("pre")).toContainText('<img src=x onerror=\\"window.__xss=1\\">');
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
});
