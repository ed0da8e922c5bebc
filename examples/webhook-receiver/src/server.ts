import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from "@social-dev-platform/sdk";

/**
 * A webhook receiver in one file of plain Node: it verifies each request with the SDK's
 * verifyWebhook (Standard Webhooks signatures, replays older than 5 minutes refused), answers 204 at
 * once and handles the event afterwards, and handles each event once even though the platform
 * delivers at least once (a retry carries the same event id).
 *
 * Environment: WEBHOOK_SECRET (the endpoint's `whsec_…` secret; during a rotation the old and the
 * new one, separated by a space or a comma); optional PORT (default 4100, 0 for any free port) and
 * HOST (default 127.0.0.1; 0.0.0.0 to be reachable from other machines).
 */
const SECRETS = (process.env.WEBHOOK_SECRET ?? "").split(/[\s,]+/).filter(Boolean);
const PORT = Number(process.env.PORT ?? 4100);
const HOST = process.env.HOST ?? "127.0.0.1";
if (SECRETS.length === 0) {
  console.error("WEBHOOK_SECRET is required: the endpoint's whsec_… signing secret, shown once when you added the endpoint");
  process.exit(1);
}

/** Webhook bodies are small; anything larger is not one of ours. */
const MAX_BODY_BYTES = 1024 * 1024;
/** How many event ids are remembered: the platform retries for days, but a retry of an event this old is rare. */
const REMEMBERED_EVENTS = 10_000;
/** Event ids already handled, oldest first (a Map keeps insertion order). A real app keeps them in its database. */
const seen = new Map<string, true>();

function remember(id: string): boolean {
  if (seen.has(id)) return false;
  seen.set(id, true);
  if (seen.size > REMEMBERED_EVENTS) seen.delete(seen.keys().next().value!);
  return true;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function reply(res: ServerResponse, status: number, text?: string) {
  res.writeHead(status, text === undefined ? {} : { "content-type": "text/plain; charset=utf-8" });
  res.end(text);
}

/** The work an event starts. It runs after the answer went out: the platform waits at most 10 s. */
async function handle(event: WebhookEvent): Promise<void> {
  switch (event.type) {
    case "chat.message.created":
      console.log(`webhook-receiver: chat message ${event.data.id} from @${event.data.author.handle}`);
      break;
    case "app.authorization.revoked":
      console.log(`webhook-receiver: @${event.data.user} revoked the app: forget their tokens`);
      break;
    default:
      break;
  }
}

const server = createServer(async (req, res) => {
  if (req.method !== "POST") {
    res.setHeader("allow", "POST");
    return reply(res, 405, "POST webhooks here\n");
  }
  const body = await readBody(req);
  if (body === null) return reply(res, 413, "too large\n");

  let event: WebhookEvent;
  try {
    // The raw bytes, before any JSON parsing: the signature covers them exactly.
    event = await verifyWebhook(body, req.headers, SECRETS);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.log(`webhook-receiver: refused a request: ${error.message}`);
    return reply(res, 400, `${error.message}\n`);
  }

  // Answer first (any 2xx counts as delivered), then work; a repeat is acknowledged and not handled again.
  reply(res, 204);
  if (!remember(event.id)) {
    console.log(`webhook-receiver: ${event.id} again (a retry or redelivery): already handled`);
    return;
  }
  console.log(`webhook-receiver: ${event.type} ${event.id}`);
  handle(event).catch((error: unknown) => console.error(`webhook-receiver: handling ${event.id} failed:`, error));
});

server.listen(PORT, HOST, () => {
  const { port } = server.address() as AddressInfo;
  console.log(`webhook-receiver: listening on http://${HOST}:${port}/ with ${SECRETS.length} secret(s)`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
