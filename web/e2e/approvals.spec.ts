// A step that needs approval: approve runs it, deny does not.
import { expect, test } from "@playwright/test";
import { docScreenshot, lastAnswer, login, send, waitIdle } from "./helpers";

test("approving a shell step runs it and the card shows its result", async ({ page }) => {
  await login(page);
  await send(page, "E2E approve: which kernel is this?");
  const step = lastAnswer(page).getByTestId("step");
  await expect(step).toHaveAttribute("data-status", "waiting");
  await expect(step.getByTestId("confirm")).toContainText("run_shell needs approval");
  await expect(step).toContainText("uname -s");
  // The live view follows the device the run holds, and shows its frames meanwhile.
  const live = page.getByTestId("live-img");
  await expect.poll(() => live.evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 20_000 }).toBeGreaterThan(0);
  await docScreenshot(page, "confirm");
  await step.getByRole("button", { name: "Approve" }).click();
  await expect(step).toHaveAttribute("data-status", "success");
  await step.locator(".step-detail summary").click();
  await expect(step.locator(".step-detail pre")).toContainText("Linux");
  await expect(lastAnswer(page).getByTestId("answer")).toContainText("E2E-APPROVE-END");
  await waitIdle(page);
  await expect(step.getByRole("button", { name: "Approve" })).toHaveCount(0);
});

test("denying a shell step does not run it", async ({ page }) => {
  await login(page);
  await send(page, "E2E deny: which kernel is this?");
  const step = lastAnswer(page).getByTestId("step");
  await expect(step).toHaveAttribute("data-status", "waiting");
  await step.getByRole("button", { name: "Deny" }).click();
  await expect(step).toHaveAttribute("data-status", "denied");
  await expect(step.getByTestId("confirm")).toContainText("denied");
  await expect(lastAnswer(page).getByTestId("answer")).toContainText("E2E-DENY-END");
  await waitIdle(page);
  // The command never ran: no output anywhere on the card.
  await expect(step).not.toContainText("Linux");
});
