// The memory in the chat: a run whose task is like a stored experience shows the recalled
// experience as a card (its title escaped, as text), live and again after a reload.
import { expect, test } from "@playwright/test";
import { lastAnswer, login, send, serverUrl, waitIdle } from "./helpers";

test("a run recalls a similar experience and the chat shows it as a card", async ({ page }) => {
  await login(page);
  const me = await page.request.get(`${serverUrl()}/api/auth/me`);
  const { csrf_token } = (await me.json()) as { csrf_token: string };
  const made = await page.request.post(`${serverUrl()}/api/memory/experiences`, {
    headers: { "X-CSRF-Token": csrf_token },
    data: {
      task: "E2E memory: tidy the desktop windows",
      title: "<b>Tidy</b> windows",
      recipe: "List the windows, then close the ones nobody needs by their close buttons.",
    },
  });
  expect(made.status()).toBe(201);

  await send(page, "E2E memory: tidy the desktop windows please");
  const card = lastAnswer(page).getByTestId("memory-card");
  await expect(card).toHaveCount(1);
  await expect(card).toHaveAttribute("data-kind", "experience");
  await expect(card).toHaveAttribute("data-outcome", "recalled");
  await expect(card).toContainText("Recalled 1 similar experience into the prompt");
  await expect(card).toContainText("<b>Tidy</b> windows");
  await expect(card.locator("b")).toHaveCount(0);
  await expect(lastAnswer(page).getByTestId("answer")).toContainText("E2E-MEMORY-END");
  await waitIdle(page);

  // The run's notes are stored after its done: a reload shows the card from the store.
  await expect(async () => {
    await page.reload();
    await expect(lastAnswer(page).getByTestId("memory-card")).toHaveCount(1, { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(lastAnswer(page).getByTestId("memory-card")).toContainText("<b>Tidy</b> windows");
});
