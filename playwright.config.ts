import { defineConfig } from "@playwright/test";

/**
 * The browser journeys (`e2e/*.spec.ts`) in Debian's Chromium against the real server (Next, the
 * sign-in service, the API) on an embedded PostgreSQL with the demo world; `e2e/global-setup.ts`
 * starts both once for the run and removes them afterwards. The journeys share that server and
 * its data: no file assumes it is alone in the database (each creates its own rows, or its own
 * people), so two files run at once, one per worker; a file's tests run in order in its worker.
 * While one worker's page runs axe, a CPU-bound script in one renderer, the other core serves the
 * other worker; the layout sweep is two files (e2e/sweep.ts) so that neither worker waits on it.
 */
export default defineConfig({
  testDir: "e2e",
  testMatch: "*.spec.ts",
  globalSetup: "./e2e/global-setup.ts",
  outputDir: "test-results/e2e",
  reporter: [["list"], ["html", { open: "never", outputFolder: "test-results/e2e-report" }]],
  workers: 2,
  fullyParallel: false,
  // No retries: a flaky journey is a defect to fix, not to hide (STYLE, Tests and config).
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 120_000,
  use: {
    browserName: "chromium",
    launchOptions: {
      // Debian's full Chromium, not its chromium-headless-shell (a tenth less CPU in the layout sweep,
      // but a navigation that fails, such as a redirect to an app's callback on a closed port,
      // leaves the page at chrome-error://chromewebdata/ there, so waitForURL never sees the callback).
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        // Debian's launcher script adds --enable-gpu-rasterization (/etc/chromium.d/default-flags):
        // with no GPU, that rasterizes and composites through SwiftShader in the GPU process, which
        // costs more CPU than the renderer drawing the page itself (the layout sweep: 7 % less CPU
        // and the same screenshots with both off).
        "--disable-gpu-rasterization",
        "--disable-gpu-compositing",
      ],
    },
    viewport: { width: 1280, height: 900 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
});
