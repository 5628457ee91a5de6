// A phone in the console: the simulated phone behind the real adb server (global-setup's adb
// double) in the device picker with its model and Android version, one waiting for authorization
// listed disabled with its state, the phone's live view, and a chat on the phone that opens its
// calculator.
import { expect, type Locator, test } from "@playwright/test";
import { execFileSync } from "node:child_process";
import { docScreenshot, lastAnswer, login, releaseModel, send, waitIdle } from "./helpers";

/** A serial global-setup exported. */
function serial(name: "DEFT_E2E_PHONE" | "DEFT_E2E_PHONE_UNAUTHORIZED"): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: the global setup did not run`);
  return v;
}

/** What the phone shows in front, as adb reports it (`mCurrentFocus`). */
function phoneFocus(phone: string): string {
  const port = process.env.DEFT_E2E_ADB_PORT;
  if (!port) throw new Error("DEFT_E2E_ADB_PORT is not set: the global setup did not run");
  const out = execFileSync("adb", ["-P", port, "-s", phone, "shell", "dumpsys", "window", "windows"], { encoding: "utf8" });
  return out.split("\n").find((l) => l.includes("mCurrentFocus")) ?? "";
}

test("the device picker lists the phones, shows the phone's screen and a chat opens its calculator", async ({ page }) => {
  const phone = serial("DEFT_E2E_PHONE");
  const waiting = serial("DEFT_E2E_PHONE_UNAUTHORIZED");
  await login(page);
  const picker = page.getByTestId("device-picker");
  // The desktop stays the device a page starts with.
  await expect(picker).toHaveValue("local");

  // The ready phone: its serial, model and Android version; the other one disabled with its state.
  const ready = picker.locator(`option[value="${phone}"]`);
  await expect(ready).toHaveText(new RegExp(`^${escape(phone)} · \\S.* · Android 14$`));
  await expect(ready).toBeEnabled();
  const unauthorized = picker.locator(`option[value="${waiting}"]`);
  await expect(unauthorized).toHaveText(new RegExp(`^${escape(waiting)} · .* \\(unauthorized\\)$`));
  await expect(unauthorized).toBeDisabled();

  // Chosen, its live view shows frames of the phone's screen.
  await picker.selectOption(phone);
  await expect(page.getByLabel("Live view")).toContainText(phone);
  const live = page.getByTestId("live-img");
  await expect(live).toHaveAttribute("alt", `Live screen of ${phone}`);
  await expect.poll(() => live.evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 20_000 }).toBeGreaterThan(0);
  await expect.poll(() => live.evaluate((img: HTMLImageElement) => img.naturalHeight)).toBeGreaterThan(0);
  expect(phoneFocus(phone)).not.toContain("calculator");
  const home = await frameDigest(live);

  // A chat on the phone: the model opens the calculator by its label; the answer is held until
  // the step has been looked at, while the run holds the phone.
  await send(page, "E2E phone: open the calculator");
  const msg = lastAnswer(page);
  const step = msg.getByTestId("step");
  await expect(step).toHaveCount(1);
  await expect(step).toHaveAttribute("data-tool", "launch_app");
  await expect(step).toHaveAttribute("data-status", "success");
  await expect(step).toContainText("Calculator");
  await expect(picker).toHaveValue(phone);
  await expect(picker).toBeDisabled();
  expect(phoneFocus(phone)).toContain("com.android.calculator2");
  // The live view follows: a frame of the calculator replaces the home screen's.
  await expect.poll(() => frameDigest(live), { timeout: 20_000 }).not.toBe(home);
  await docScreenshot(page, "phone");

  await releaseModel();
  await expect(msg.getByTestId("answer")).toContainText("E2E-PHONE-END");
  await waitIdle(page);
  await expect(picker).toBeEnabled();
  await expect(picker).toHaveValue(phone);
});

/** A digest of the frame `img` shows now (its pixels drawn on a canvas). */
async function frameDigest(img: Locator): Promise<string> {
  return img.evaluate((el: HTMLImageElement) => {
    const canvas = document.createElement("canvas");
    canvas.width = el.naturalWidth;
    canvas.height = el.naturalHeight;
    const ctx = canvas.getContext("2d")!;
    ctx.drawImage(el, 0, 0);
    const px = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let h = 0;
    for (let i = 0; i < px.length; i += 4) h = (Math.imul(h, 31) + px[i] + (px[i + 1] << 8) + (px[i + 2] << 16)) | 0;
    return `${canvas.width}x${canvas.height}:${h}`;
  });
}

/** `text` as a literal part of a regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
