// Model output never runs script: every payload renders as text.
import { expect, test } from "@playwright/test";
import { lastAnswer, login, send, waitIdle } from "./helpers";

test("an XSS corpus in the answer renders as text and runs nothing", async ({ page }) => {
  await page.addInitScript(() => {
    delete (window as { __xss?: number }).__xss;
  });
  await login(page);
  await send(page, "E2E xss: show the corpus");
  const answer = lastAnswer(page).getByTestId("answer");
  await expect(answer).toContainText("XSS-CORPUS-END");
  await waitIdle(page);

  expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
  // Nothing active came through the renderer (the page's CSP is a second wall, not the test).
  await expect(
    answer.locator("script, iframe, svg, img, object, embed, details, [onerror], [onload], [onclick], [ontoggle], [style]"),
  ).toHaveCount(0);
  await expect(answer.locator('a[href^="javascript" i], a[href^="data" i]')).toHaveCount(0);
  for (const a of await answer.locator("a").all()) {
    await expect(a).toHaveAttribute("rel", "noopener noreferrer");
  }

  // The payloads are visible as text.
  await expect(answer).toContainText("<script>window.__xss = 1</script>");
  await expect(answer).toContainText('<img src=x onerror="window.__xss = 1">');
  await expect(answer).toContainText('<svg onload="window.__xss = 1">');
  await expect(answer).toContainText('<iframe src="javascript:window.__xss=1"></iframe>');
  await expect(answer).toContainText('<a href="javascript:window.__xss=1">raw anchor</a>');
  await expect(answer).toContainText("click me");
  await expect(answer.locator("pre code")).toContainText('<img src=x onerror="window.__xss = 1">');
  await expect(answer.locator("td").filter({ hasText: '<img src=x onerror="window.__xss=1">' })).toHaveCount(1);
  await expect(answer.locator("td code")).toHaveText("<script>window.__xss=1</script>");

  // Still nothing ran after a reload that renders the stored message.
  await page.reload();
  await expect(lastAnswer(page).getByTestId("answer")).toContainText("XSS-CORPUS-END");
  expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
});
