// Runs across a reload, stopping a run, and a model error (shown once, with Retry).
import { expect, test } from "@playwright/test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { lastAnswer, login, releaseModel, send, serverUrl, waitIdle } from "./helpers";

const here = dirname(fileURLToPath(import.meta.url));
const script = JSON.parse(readFileSync(join(here, "model-script.json"), "utf8")) as {
  match: string;
  turns: { text?: string }[];
}[];
const slowText = script.find((s) => s.match === "E2E reload")!.turns[0].text!;

test("a reload mid-run replays the run and continues live; the answer shows once", async ({ page }) => {
  await login(page);
  const prompt = "E2E reload: stream slowly please";
  await send(page, prompt);
  await expect(lastAnswer(page).getByTestId("answer")).toContainText("streams slowly");
  await expect(lastAnswer(page).getByTestId("answer")).not.toContainText("END-OF-SLOW-ANSWER");

  await page.reload();
  await expect(page.getByTestId("run-indicator")).toBeVisible();
  await expect(page.getByTestId("msg-user").filter({ hasText: prompt })).toHaveCount(1);
  const answer = lastAnswer(page).getByTestId("answer");
  await expect(answer).toContainText("streams slowly");
  await expect(answer).not.toContainText("END-OF-SLOW-ANSWER");
  // The model holds the answer before its last words until released: the reload happened
  // mid-answer however slow the machine.
  await releaseModel();
  await expect(answer).toContainText("END-OF-SLOW-ANSWER", { timeout: 60_000 });
  await waitIdle(page);
  await expect(page.getByTestId("answer").filter({ hasText: "END-OF-SLOW-ANSWER" })).toHaveCount(1);
  expect((await answer.textContent())?.trim()).toBe(slowText);
  await expect(page.getByTestId("msg-user").filter({ hasText: prompt })).toHaveCount(1);
});

test("the stop button ends the run as stopped", async ({ page }) => {
  await login(page);
  await send(page, "E2E stop: a long answer");
  await expect(lastAnswer(page).getByTestId("answer")).toContainText("stop button");
  await page.getByTestId("stop").click();
  await expect(lastAnswer(page).getByTestId("run-status")).toHaveText("stopped", { timeout: 15_000 });
  await waitIdle(page);
  await expect(page.getByTestId("send")).toBeVisible();
});

test("a model error shows the server's text once, the run fails, and Retry sends the request again", async ({ page }) => {
  const prompt = "E2E model error: try it";
  const error = "Incorrect API key provided: sk-e2e.";
  await login(page);
  await send(page, prompt);
  const msg = lastAnswer(page);
  await expect(msg.getByTestId("run-status")).toHaveText("failed");
  await expect(msg).toContainText(error);
  // Once: as the run's error, not again as its answer.
  await expect(msg.getByText(error)).toHaveCount(1);
  await expect(msg.getByRole("alert")).toContainText(error);
  await expect(msg.getByTestId("answer")).toHaveCount(0);

  // Retry sends the same request in the same conversation (the scripted model fails it again).
  await msg.getByTestId("retry").click();
  await expect(page.getByTestId("msg-user").filter({ hasText: prompt })).toHaveCount(2);
  await expect(page.getByTestId("msg-assistant")).toHaveCount(2);
  await expect(lastAnswer(page).getByTestId("run-status")).toHaveText("failed");
  await waitIdle(page);
  // Only the last message offers it.
  await expect(page.getByTestId("retry")).toHaveCount(1);
  await expect(lastAnswer(page).getByTestId("retry")).toBeVisible();

  // After a reload the stored message shows the error once and still offers Retry.
  await page.reload();
  await expect(page.getByTestId("msg-assistant")).toHaveCount(2);
  await expect(lastAnswer(page).getByText(error)).toHaveCount(1);
  await expect(lastAnswer(page).getByTestId("retry")).toBeVisible();
  await expect(page.getByTestId("retry")).toHaveCount(1);
});

test("a second window that starts a run while one is active shows the server's 409 text", async ({ page, context }) => {
  await login(page);
  const other = await context.newPage();
  await other.goto(serverUrl());
  await expect(other.getByTestId("prompt")).toBeVisible();

  await send(page, "E2E reload: stream slowly (busy check)");
  await expect(page.getByTestId("run-indicator")).toBeVisible();

  // The other window has not heard of the run yet; another device keeps its Send enabled.
  await other.getByTestId("device-picker").selectOption("browser");
  await other.getByTestId("prompt").fill("E2E quick: second");
  await other.getByTestId("prompt").press("Enter");
  await expect(other.getByTestId("banner")).toContainText("another run is active");
  await expect(other.getByTestId("prompt")).toHaveValue("E2E quick: second");

  await page.getByTestId("stop").click();
  await waitIdle(page);
});
