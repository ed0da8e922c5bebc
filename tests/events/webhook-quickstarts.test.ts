import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateWebhookSecret, webhookHeaders } from "../../lib/events/signing";
import { webhookQuickstartSnippets } from "../../lib/quickstarts";

/**
 * The webhook quickstarts (lib/quickstarts.ts webhookQuickstartSnippets) run as written: the
 * TypeScript one with tsx (the SDK from the workspace), the Python one with /usr/bin/python3
 * (standard library only, the signature checked by hand). Each receives what lib/events/signing.ts
 * signs (one secret, and two during a rotation), handles a repeated event id once, and answers 400 to
 * a forged signature, a changed body, a replayed timestamp and missing headers.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const WORK = path.join(ROOT, ".test-data", `webhook-quickstarts-${process.pid}`);
const PYTHON = "/usr/bin/python3";
const oldSecret = generateWebhookSecret();
const secret = generateWebhookSecret();

interface Running {
  url: string;
  lines: string[];
  child: ChildProcess;
}
const running: Running[] = [];

beforeAll(async () => {
  await mkdir(WORK, { recursive: true });
});

afterAll(async () => {
  for (const r of running) r.child.kill("SIGKILL");
  await rm(WORK, { recursive: true, force: true });
});

async function start(language: "typescript" | "python"): Promise<Running> {
  const snippet = webhookQuickstartSnippets().find((s) => s.language === language)!;
  const file = path.join(WORK, `receiver.${language === "python" ? "py" : "mts"}`);
  await writeFile(file, snippet.code);
  const [command, args] = language === "python" ? [PYTHON, ["-u", file]] : [process.execPath, ["--conditions=source", "--import", "tsx", file]];
  const child = spawn(command, args, { cwd: WORK, env: { ...process.env, WEBHOOK_SECRET: `${oldSecret} ${secret}`, PORT: "0" }, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c));
  const url = await new Promise<string>((resolve, reject) => {
    let pending = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      pending += chunk;
      let i;
      while ((i = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, i);
        pending = pending.slice(i + 1);
        lines.push(line);
        const m = /^Listening on (\S+)$/.exec(line);
        if (m) resolve(m[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`${language} receiver exited (${code}): ${stderr}`)));
    setTimeout(() => reject(new Error(`${language} receiver did not start: ${stderr}`)), 30_000);
  });
  const r = { url, lines, child };
  running.push(r);
  return r;
}

const now = () => Math.floor(Date.now() / 1000);
const post = (url: string, body: string, headers: Record<string, string>) => fetch(url, { method: "POST", body, headers });
const until = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i += 1) await new Promise((r) => setTimeout(r, 50));
};

describe.each(["python", "typescript"] as const)("%s webhook quickstart", (language) => {
  let receiver: Running;
  beforeAll(async () => {
    receiver = await start(language);
  });

  it("accepts what the platform signs (either secret of a rotation, or the reference library), handling each event id once", async () => {
    const body = JSON.stringify({ id: "evt_qs_1", type: "ping", created_at: now(), data: {} });
    expect((await post(receiver.url, body, webhookHeaders("evt_qs_1", now(), body, [secret]))).status).toBe(204);
    expect((await post(receiver.url, body, webhookHeaders("evt_qs_1", now(), body, [oldSecret, secret]))).status).toBe(204);
    const other = JSON.stringify({ id: "evt_qs_2", type: "app.status.changed", created_at: now(), data: { status: "suspended" } });
    const ts = now();
    const reference = { "webhook-id": "evt_qs_2", "webhook-timestamp": String(ts), "webhook-signature": new Webhook(oldSecret).sign("evt_qs_2", new Date(ts * 1000), other) };
    expect((await post(receiver.url, other, reference)).status).toBe(204);
    await until(() => receiver.lines.includes("app.status.changed evt_qs_2"));
    expect(receiver.lines.filter((l) => l.endsWith(" evt_qs_1") || l.endsWith(" evt_qs_2"))).toEqual(["ping evt_qs_1", "app.status.changed evt_qs_2"]);
  });

  it("answers 400 to a forged signature, a changed body, a replayed timestamp and missing headers", async () => {
    const body = JSON.stringify({ id: "evt_qs_3", type: "ping", created_at: now(), data: { text: "grüße" } });
    const forged = await post(receiver.url, body, webhookHeaders("evt_qs_3", now(), body, [generateWebhookSecret()]));
    expect(forged.status).toBe(400);
    const headers = webhookHeaders("evt_qs_3", now(), body, [secret]);
    expect((await post(receiver.url, body.replace("ping", "pong"), headers)).status).toBe(400);
    expect((await post(receiver.url, body, { ...headers, "webhook-id": "evt_qs_4" })).status).toBe(400);
    expect((await post(receiver.url, body, webhookHeaders("evt_qs_3", now() - 600, body, [secret]))).status).toBe(400);
    expect((await post(receiver.url, body, { "content-type": "application/json" })).status).toBe(400);
    expect((await post(receiver.url, body, { ...headers, "webhook-signature": "v1,grüße" })).status).toBe(400);
    expect(receiver.lines.some((l) => l.includes("evt_qs_3") || l.includes("evt_qs_4"))).toBe(false);
    // The genuine request is accepted (a non-ASCII body, verified as its UTF-8 bytes).
    expect((await post(receiver.url, body, headers)).status).toBe(204);
    await until(() => receiver.lines.includes("ping evt_qs_3"));
    expect(receiver.lines).toContain("ping evt_qs_3");
  });
});
