import { expect, test, type Page } from "@playwright/test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { createTestApp } from "../tests/helpers/oidc";
import { expectAccessible, expectNoHorizontalOverflow, newContext, query, screenshot, server, signIn } from "./support";

/**
 * The Webhooks tab: a developer adds an endpoint pointing at a receiver this test runs on
 * 127.0.0.1 (the e2e server has WEBHOOKS_ALLOW_PRIVATE=1 and a retry schedule of 0.5 s, 0.5 s), sees
 * its signing secret once, sends a test event and sees it delivered, makes the receiver fail and
 * sees the attempts fail, fixes it and redelivers. The receiver checks every delivery's signature
 * with the secret the page showed. Then a team viewer reads the same tab without any way to change
 * it. Screenshots at 1280 and 390 px, axe, no sideways scrolling.
 */

interface Received {
  id: string;
  type: string;
  body: string;
  headers: Record<string, string>;
}

async function startReceiver() {
  const received: Received[] = [];
  const state = { status: 204 };
  const srv = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      const event = JSON.parse(body) as { id: string; type: string };
      received.push({ id: event.id, type: event.type, body, headers: req.headers as Record<string, string> });
      if (state.status >= 300) {
        res.writeHead(state.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "receiver_unavailable", message: "The order service is down for maintenance; try again later." }));
      } else {
        res.writeHead(state.status);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as AddressInfo;
  return { port, received, state, close: () => new Promise<void>((r) => srv.close(() => r())) };
}

const rows = (page: Page, eventId: string) => page.getByTestId("delivery-row").filter({ hasText: eventId });

test("a developer adds a webhook endpoint, sees its secret once, and follows deliveries through failure and redelivery", async ({ browser }) => {
  const foreign: string[] = [];
  const receiver = await startReceiver();
  try {
    const app = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "carol", scopes: ["svc:chat.read"], name: "Order desk notifier" });
    const url = `http://127.0.0.1:${receiver.port}/integrations/platform/webhooks/v1/receive?tenant=acme-logistics-production-eu-west-1&source=developer-portal`;

    const page = await (await newContext(browser, foreign)).newPage();
    await signIn(page, "carol", `/apps/${app.clientId}/webhooks`);
    await expect(page.getByRole("navigation", { name: "Application sections" }).getByRole("link", { name: "Webhooks" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByTestId("webhooks-empty")).toBeVisible();
    await expect(page.getByTestId("delivery-log-empty")).toBeVisible();

    // Add: every event the app may receive (the default).
    await page.getByLabel("Endpoint URL").fill(url);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secretField = page.getByTestId("signing-secret");
    await expect(secretField).toHaveValue(/^whsec_/);
    const secret = await secretField.inputValue();
    await expect(page.getByText("Signing secret — store it now, it will not be shown again")).toBeVisible();
    const row = page.getByTestId("webhook-row");
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId("webhook-url")).toHaveText(url);
    await expect(row).toContainText("All events the app may receive");
    await expect(row).toContainText("Enabled");

    // Once: a reload shows the endpoint, never the secret.
    await page.reload();
    await expect(page.getByTestId("webhook-row")).toHaveCount(1);
    await expect(page.getByTestId("signing-secret")).toHaveCount(0);
    expect(await page.content()).not.toContain(secret);

    // A test event arrives signed with the secret shown, and the log says delivered.
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(1);
    const ping = receiver.received[0]!;
    expect(ping.type).toBe("ping");
    expect(() => new Webhook(secret).verify(ping.body, ping.headers)).not.toThrow();
    const delivered = rows(page, ping.id);
    await expect(delivered).toHaveCount(1, { timeout: 15_000 });
    await expect(delivered).toHaveAttribute("data-state", "delivered", { timeout: 15_000 });
    await expect(delivered.getByTestId("delivery-result")).toHaveText("204");
    await expect(delivered.getByTestId("delivery-attempt")).toHaveText("1");
    await expect(delivered).toContainText("ping");

    // The receiver fails: three attempts of one event id, each failed, the last with no retry left.
    receiver.state.status = 500;
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(4);
    const failing = receiver.received[1]!;
    expect(failing.id).not.toBe(ping.id);
    expect(receiver.received.slice(1).map((r) => r.id)).toEqual([failing.id, failing.id, failing.id]);
    const failed = rows(page, failing.id);
    await expect(failed.and(page.locator('[data-state="failed"]'))).toHaveCount(3, { timeout: 15_000 });
    const last = failed.filter({ has: page.getByTestId("delivery-attempt").getByText("3", { exact: true }) });
    await expect(last.getByTestId("delivery-result")).toHaveText("500");
    await expect(last).toContainText("none");
    await last.getByText("Response", { exact: true }).click();
    await expect(last.getByTestId("delivery-response")).toContainText("down for maintenance");
    await expect(page.getByTestId("webhook-row")).toContainText("Deliveries failing since");

    // Only the failures, by the filter in the URL.
    await page.getByLabel("Result").selectOption("failed");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/status=failed/);
    await expect(page.getByTestId("delivery-row")).toHaveCount(3);
    await expect(rows(page, ping.id)).toHaveCount(0);
    await page.getByRole("link", { name: "Clear" }).click();
    await expect(page.getByTestId("delivery-row")).toHaveCount(4);

    // Fixed: redelivering the failed attempt sends the same event id again, and it is delivered.
    receiver.state.status = 204;
    await rows(page, failing.id).first().getByRole("button", { name: /^Redeliver/ }).click();
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(5);
    const again = receiver.received[4]!;
    expect(again.id).toBe(failing.id);
    expect(again.headers["webhook-id"]).toBe(failing.headers["webhook-id"]);
    expect(() => new Webhook(secret).verify(again.body, again.headers)).not.toThrow();
    const redelivered = failed.filter({ hasText: "redelivery" });
    await expect(redelivered).toHaveAttribute("data-state", "delivered", { timeout: 15_000 });
    await expect(redelivered.getByTestId("delivery-result")).toHaveText("204");
    await expect(page.getByTestId("webhook-row")).not.toContainText("Deliveries failing since");

    // A second endpoint with a chosen event type, disabled: the list says so and why.
    await page.getByLabel("Endpoint URL").fill(`http://127.0.0.1:${receiver.port}/hooks/chat-archive/ingest/platform-events/chat-messages-only`);
    await page.getByText("Only the types chosen below").click();
    await page.getByRole("checkbox", { name: /^chat\.message\.created/ }).check();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await expect(page.getByTestId("signing-secret")).toHaveValue(/^whsec_/);
    const second = page.getByTestId("webhook-row").nth(1);
    await expect(second).toContainText("chat.message.created");
    await second.getByRole("button", { name: "Disable" }).click();
    await expect(second.getByTestId("webhook-disabled-reason")).toHaveText("Disabled by a team member.");
    await expect(second.getByRole("button", { name: "Send test event" })).toBeDisabled();

    await expectAccessible(page, "webhooks tab, a secret shown");
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "webhooks-secret");
    await page.getByRole("button", { name: "I have stored it safely" }).click();
    await expect(page.getByLabel("Result")).toHaveValue("");
    await expectAccessible(page, "webhooks tab");
    await expectNoHorizontalOverflow(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "webhooks");
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(page, "webhooks tab, phone");
    await page.setViewportSize({ width: 1280, height: 900 });

    // A viewer of the team reads the endpoints and the log, and can change nothing.
    await query(
      server.databaseUrl,
      `INSERT INTO "AppMember" ("applicationId", "userId", role)
       SELECT a.id, u.id, 'viewer' FROM "Application" a, "User" u WHERE a."clientId" = $1 AND u.handle = 'alice'`,
      [app.clientId],
    );
    const viewer = await (await newContext(browser, foreign)).newPage();
    await signIn(viewer, "alice", `/apps/${app.clientId}/webhooks`);
    await expect(viewer.getByTestId("webhooks-read-only")).toBeVisible();
    await expect(viewer.getByTestId("webhook-row")).toHaveCount(2);
    await expect(viewer.getByTestId("delivery-row")).toHaveCount(5);
    await expect(viewer.getByRole("button", { name: /Send test event|Redeliver|Remove|Rotate secret|Disable|Add endpoint/ })).toHaveCount(0);
    await expectAccessible(viewer, "webhooks tab, viewer");

    expect(foreign).toEqual([]);
  } finally {
    await receiver.close();
  }
});
