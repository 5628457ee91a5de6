// Browser tests of the console against a real `deft serve` and the scripted model server, in
// Debian's Chromium (never a downloaded browser). One run at a time on the server: serial.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "./e2e",
  globalSetup: "./e2e/global-setup.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: [["list"]],
  outputDir: "./test-results",
  use: {
    viewport: { width: 1440, height: 900 },
    launchOptions: { executablePath: process.env.DEFT_CHROMIUM || "/usr/bin/chromium" },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
});
