// A task run's step cards against a real `deft serve` and its managed Chromium (the `browser`
// device, a data: page): a control without a name shows its value (a display's "56", never “”),
// and a selector several controls match equally shows the tie note — in the run's monitor and in
// the run history read back from the store after a reload.
import { expect, test } from "@playwright/test";
import { call, login, serverUrl, unique } from "./helpers";

const PAGE =
  "data:text/html,<title>Totals</title><input value='56' readonly>" +
  "<button onclick=\"document.getElementById('out').textContent='first OK'\">OK</button>" +
  "<button onclick=\"document.getElementById('out').textContent='second OK'\">OK</button>" +
  "<p id='out'></p>";

test("a step card shows a nameless control by its value and says a tie", async ({ page }) => {
  await login(page);
  const made = await call(page, "POST", "/api/tasks", {
    name: unique("E2E ties"),
    device: "browser",
    steps: [
      { type: "open_app", url: PAGE },
      { type: "wait_el", selector: { text: "56", type: "edit", match: "exact" }, timeout_s: 20 },
      { type: "click", selector: { text: "OK", type: "button", match: "exact" } },
      { type: "wait_el", selector: { text: "first OK", match: "exact" }, timeout_s: 20 },
    ],
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  let run = await call(page, "POST", `/api/tasks/${made.body.id}/run`, {});
  // The device stays busy until just after another run's end is stored.
  for (let i = 0; run.status === 409 && i < 40; i++) {
    await page.waitForTimeout(250);
    run = await call(page, "POST", `/api/tasks/${made.body.id}/run`, {});
  }
  expect(run.status, JSON.stringify(run.body)).toBe(202);
  await page.goto(`${serverUrl()}/task-runs/${run.body.id}`);
  await expect(page.getByTestId("run-status")).toHaveText("ok", { timeout: 60_000 });
  const step = (path: string) => page.locator(`[data-testid="run-step"][data-path="${path}"]`);
  const check = async () => {
    await expect(step("steps[1]").getByTestId("run-step-matched")).toContainText("= “56” (edit)");
    await expect(step("steps[1]").getByTestId("run-step-tie")).toHaveCount(0);
    await expect(step("steps[2]").getByTestId("run-step-matched")).toContainText("“OK” (button)");
    await expect(step("steps[2]").getByTestId("run-step-tie")).toContainText(
      /Tie: 2 controls score 100; index 0 in document order picks id \d+\./,
    );
  };
  await check();
  // The run history, as the store keeps it.
  const stored = await call(page, "GET", `/api/task-runs/${run.body.id}`);
  const clicked = stored.body.step_results.find((s: { path: string }) => s.path === "steps[2]");
  expect(clicked.matched.tie, JSON.stringify(clicked)).toMatch(/^2 controls score 100; /);
  expect(stored.body.step_results.find((s: { path: string }) => s.path === "steps[1]").matched.value).toBe("56");
  await page.reload();
  await check();
});
