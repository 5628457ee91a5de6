// A run in the chat: streamed Markdown, the reasoning block, tool cards with screenshots, token
// counts, the live view and the conversation list.
import { expect, test } from "@playwright/test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { docScreenshot, lastAnswer, login, openSidebar, send, waitIdle } from "./helpers";

const here = dirname(fileURLToPath(import.meta.url));
const script = JSON.parse(readFileSync(join(here, "model-script.json"), "utf8")) as {
  match: string;
  turns: { reasoning?: string }[];
}[];
const reasoningText = script.find((s) => s.match === "E2E markdown")!.turns[1].reasoning!;

test("a run streams Markdown, folds its reasoning, shows tool cards and counts tokens", async ({ page }) => {
  await login(page);
  await send(page, "E2E markdown: take a screenshot and summarise");
  const msg = lastAnswer(page);
  const reasoning = msg.getByTestId("reasoning");

  // The run shows as running (the answer streams for ~5 s after the screenshot step) …
  await expect(page.getByTestId("run-indicator")).toBeVisible();
  // … the reasoning block is open while it streams …
  await expect(reasoning).toHaveJSProperty("open", true);
  // … and closes once the answer starts.
  await expect(msg.getByTestId("answer")).toContainText("Desktop check");
  await expect(reasoning).toHaveJSProperty("open", false);
  // Opened by hand, it stays open to the end.
  await reasoning.locator("summary").click();
  await expect(reasoning).toHaveJSProperty("open", true);
  await expect(msg.getByTestId("answer")).toContainText("E2E-MARKDOWN-END");
  await waitIdle(page);
  await expect(reasoning).toHaveJSProperty("open", true);
  await expect(reasoning.locator("summary")).toContainText(
    `${new Intl.NumberFormat("en-US").format([...reasoningText].length)} chars`,
  );

  // Markdown: a table and a code block, as elements.
  await expect(msg.locator(".md table td").filter({ hasText: "captured" })).toHaveCount(1);
  await expect(msg.locator(".md pre code")).toContainText('echo "$DISPLAY"');
  await expect(msg.locator(".md h2")).toHaveText("Desktop check");

  // One tool card with its screenshot; a click enlarges it.
  const step = msg.getByTestId("step");
  await expect(step).toHaveCount(1);
  await expect(step).toHaveAttribute("data-tool", "capture_desktop_screenshot");
  await expect(step).toHaveAttribute("data-status", "success");
  const thumb = step.getByTestId("step-thumb");
  await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await thumb.click();
  const box = page.getByTestId("lightbox");
  await expect(box).toBeVisible();
  await expect.poll(() => box.locator("img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await page.keyboard.press("Escape");
  await expect(box).toHaveCount(0);

  // Tokens: two model calls of 100 + 20 each (the scripted model's usage).
  await expect(msg.getByTestId("token-footer")).toHaveText("🪙 240 tokens (↑200 ↓40 · 2 calls)");
  await expect(page.getByTestId("conv-total")).toHaveText("🪙 this conversation 240 tokens");

  await docScreenshot(page, "chat");
  await page.emulateMedia({ colorScheme: "dark" });
  await docScreenshot(page, "chat-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // After a reload the stored message shows the same.
  await page.reload();
  const stored = lastAnswer(page);
  await expect(stored.getByTestId("answer")).toContainText("E2E-MARKDOWN-END");
  await expect(stored.getByTestId("token-footer")).toHaveText("🪙 240 tokens (↑200 ↓40 · 2 calls)");
  await expect(stored.getByTestId("step")).toHaveAttribute("data-tool", "capture_desktop_screenshot");
  await expect(page.getByTestId("conv-total")).toHaveText("🪙 this conversation 240 tokens");
});

test("the live view shows frames of the selected device", async ({ page }) => {
  await login(page);
  await expect(page.getByTestId("device-picker")).toHaveValue("local");
  const live = page.getByTestId("live-img");
  await expect(live).toBeVisible();
  await expect.poll(() => live.evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 20_000 }).toBeGreaterThan(0);
});

test("a conversation's short id copies the whole id", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await login(page);
  // Shift+Enter starts a new line and sends nothing.
  await page.getByTestId("prompt").fill("first line");
  await page.getByTestId("prompt").press("Shift+Enter");
  await page.getByTestId("prompt").pressSequentially("second line");
  await expect(page.getByTestId("prompt")).toHaveValue("first line\nsecond line");
  await expect(page.getByTestId("msg-user")).toHaveCount(0);
  await send(page, "E2E quick: answer at once");
  await expect(lastAnswer(page).getByTestId("answer")).toContainText("E2E-QUICK-END");
  await waitIdle(page);
  await openSidebar(page);
  const item = page.getByTestId("conv").first();
  const id = (await item.getAttribute("data-id"))!;
  const chip = item.getByTestId("conv-id");
  await expect(chip).toHaveText(id.slice(0, 8));
  await chip.click();
  await expect(chip).toHaveText("copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(id);
});

test("each model call's reasoning is a paragraph of its own, live and stored", async ({ page }) => {
  await login(page);
  await send(page, "E2E two thoughts: look, then say");
  const msg = lastAnswer(page);
  await expect(msg.getByTestId("answer")).toContainText("E2E-THOUGHTS-END");
  await waitIdle(page);
  const text = msg.getByTestId("reasoning").locator(".reasoning-text");
  const both = "I should look at the screen first.\n\nI have the screenshot now.";
  await expect.poll(() => text.evaluate((el) => el.textContent)).toBe(both);
  await page.reload();
  await expect.poll(() => lastAnswer(page).getByTestId("reasoning").locator(".reasoning-text").evaluate((el) => el.textContent)).toBe(both);
});
