import type { DeliveryView, WebhookView } from "../schemas/webhooks";
import { list, parseWith, services, UsageError, type Command, type Output } from "./command";

/** `apps webhooks …`: an app's webhook endpoints and their delivery log. Every command prints JSON with --json. */

async function webhookServices() {
  const [base, webhooks, events] = await Promise.all([services(), import("../services/webhooks"), import("../schemas/events")]);
  return { ...base, webhooks, events };
}

function clientIdOf(schemas: Awaited<ReturnType<typeof services>>["schemas"], value: string | undefined): string {
  return parseWith(schemas.clientIdSchema, value, { "": "CLIENT_ID" });
}

/** `--sandbox` works on the endpoints of the app's sandbox (client sbx_…) instead of its live ones. */
const SANDBOX_OPTION = { sandbox: { type: "boolean" } } as const;
const worldOf = (values: Record<string, unknown>) => ({ sandbox: values.sandbox === true });

const when = (s: number | null) => (s === null ? "–" : new Date(s * 1000).toISOString().slice(0, 19).replace("T", " ") + " UTC");

const listed = (w: WebhookView) => ({ id: w.id, url: w.url, events: w.events, status: w.status, created_at: w.created_at });

function line(w: WebhookView): string {
  const events = w.events.length ? w.events.join(",") : "every type";
  const why = w.status === "disabled" && w.disabled_reason ? ` (${w.disabled_reason})` : "";
  return `${w.id}  ${w.status}${why}  ${w.url}  ${events}`;
}

export const appsWebhooksAdd: Command = {
  usage: "apps webhooks add CLIENT_ID --url URL [--event TYPE]… [--sandbox] [--json]",
  summary: "Add a webhook endpoint (https; at most 5 per app); its signing secret (whsec_…) is printed once",
  options: { url: { type: "string" }, event: { type: "string", multiple: true }, ...SANDBOX_OPTION },
  positionals: ["CLIENT_ID"],
  helpDetails: ["", "Without --event the endpoint receives every type the app may receive (docs: Events)."],
  async run({ args, values }) {
    const { webhooks, schemas, actor, events } = await webhookServices();
    const clientId = clientIdOf(schemas, args[0]);
    if (typeof values.url !== "string") throw new UsageError("--url: give the endpoint's URL");
    const types = list(values.event).map((t) => parseWith(events.eventTypeSchema, t, { "": "--event" }));
    const added = await webhooks.addWebhook(clientId, { url: values.url, events: types }, actor, worldOf(values));
    return {
      json: { ...listed(added), secret: added.secret },
      text: [`Added ${line(added)}`, `secret: ${added.secret}`, "Store the secret now: it is shown only once. Verify every delivery with it (Standard Webhooks)."].join("\n"),
    };
  },
};

export const appsWebhooksList: Command = {
  usage: "apps webhooks list CLIENT_ID [--sandbox] [--json]",
  summary: "List an app's webhook endpoints (never their secrets)",
  options: SANDBOX_OPTION,
  positionals: ["CLIENT_ID"],
  async run({ args, values }) {
    const { webhooks, schemas, actor } = await webhookServices();
    const all = await webhooks.listWebhooks(clientIdOf(schemas, args[0]), actor, worldOf(values));
    return { json: all.map(listed), text: all.length ? all.map(line).join("\n") : "No webhook endpoint." };
  },
};

export const appsWebhooksRemove: Command = {
  usage: "apps webhooks remove CLIENT_ID WEBHOOK_ID [--sandbox] [--json]",
  summary: "Remove a webhook endpoint; its pending deliveries are dropped",
  options: SANDBOX_OPTION,
  positionals: ["CLIENT_ID", "WEBHOOK_ID"],
  async run({ args, values }) {
    const { webhooks, schemas, actor } = await webhookServices();
    const removed = await webhooks.removeWebhook(clientIdOf(schemas, args[0]), args[1] ?? "", actor, worldOf(values));
    return { json: removed, text: `Removed ${removed.id}.` };
  },
};

function toggle(enabled: boolean): Command {
  const verb = enabled ? "enable" : "disable";
  return {
    usage: `apps webhooks ${verb} CLIENT_ID WEBHOOK_ID [--sandbox] [--json]`,
    summary: enabled ? "Enable a webhook endpoint again (deliveries resume with new events)" : "Disable a webhook endpoint: nothing is sent to it until it is enabled",
    options: SANDBOX_OPTION,
    positionals: ["CLIENT_ID", "WEBHOOK_ID"],
    async run({ args, values }) {
      const { webhooks, schemas, actor } = await webhookServices();
      const view = await webhooks.setWebhookEnabled(clientIdOf(schemas, args[0]), args[1] ?? "", enabled, actor, worldOf(values));
      return { json: listed(view), text: line(view) };
    },
  };
}
export const appsWebhooksEnable = toggle(true);
export const appsWebhooksDisable = toggle(false);

export const appsWebhooksRotate: Command = {
  usage: "apps webhooks rotate-secret CLIENT_ID WEBHOOK_ID [--sandbox] [--json]",
  summary: "A new signing secret, printed once; the old one keeps signing alongside it for 24 hours",
  options: SANDBOX_OPTION,
  positionals: ["CLIENT_ID", "WEBHOOK_ID"],
  async run({ args, values }) {
    const { webhooks, schemas, actor } = await webhookServices();
    const rotated = await webhooks.rotateWebhookSecret(clientIdOf(schemas, args[0]), args[1] ?? "", actor, worldOf(values));
    return {
      json: rotated,
      text: [`New secret for ${rotated.id}: ${rotated.secret}`, "Deliveries carry two signatures (new and old) for 24 hours: deploy the new secret within that time."].join("\n"),
    };
  },
};

export const appsWebhooksTest: Command = {
  usage: "apps webhooks test CLIENT_ID WEBHOOK_ID [--sandbox] [--json]",
  summary: "Send a ping event to one endpoint; see the result in `apps webhooks deliveries`",
  options: SANDBOX_OPTION,
  positionals: ["CLIENT_ID", "WEBHOOK_ID"],
  async run({ args, values }) {
    const { webhooks, schemas, actor } = await webhookServices();
    const sent = await webhooks.sendTestEvent(clientIdOf(schemas, args[0]), args[1] ?? "", actor, worldOf(values));
    return { json: sent, text: `Queued ping ${sent.event_id} as delivery ${sent.delivery_id}.` };
  },
};

const deliveryJson = (d: DeliveryView) => ({
  id: d.id,
  webhook_id: d.webhook_id,
  event_id: d.event_id,
  event_type: d.event_type,
  attempt: d.attempt,
  status_code: d.status_code,
  ok: d.ok,
  error: d.error,
  latency_ms: d.latency_ms,
  created_at: d.created_at,
  next_attempt_at: d.next_attempt_at,
});

export const appsWebhooksDeliveries: Command = {
  usage: "apps webhooks deliveries CLIENT_ID [--webhook WEBHOOK_ID] [--status failed|delivered] [--limit N] [--sandbox] [--json]",
  summary: "The delivery log, newest first: every attempt with its status code or error, latency and next retry (kept 7 days)",
  options: { webhook: { type: "string" }, status: { type: "string" }, limit: { type: "string" }, ...SANDBOX_OPTION },
  positionals: ["CLIENT_ID"],
  async run({ args, values }): Promise<Output> {
    const { webhooks, schemas, actor } = await webhookServices();
    const { deliveryFilterSchema } = await import("../schemas/webhooks");
    const filter = parseWith(deliveryFilterSchema, { webhook: values.webhook, status: values.status, limit: values.limit }, {
      webhook: "--webhook",
      status: "--status",
      limit: "--limit",
    });
    const rows = await webhooks.listDeliveries(clientIdOf(schemas, args[0]), filter, actor, worldOf(values));
    const text = rows.map((d) => {
      const outcome = d.state === "pending" ? "pending" : d.ok ? `${d.status_code} delivered` : `${d.status_code ?? d.error} failed`;
      const retry = d.next_attempt_at ? `  next ${when(d.next_attempt_at)}` : "";
      return `${d.id}  ${when(d.created_at)}  ${d.event_type} ${d.event_id}  attempt ${d.attempt}  ${outcome}  ${d.latency_ms ?? "–"} ms${retry}`;
    });
    return { json: rows.map(deliveryJson), text: text.length ? text.join("\n") : "No delivery." };
  },
};

export const appsWebhooksBacklog: Command = {
  usage: "apps webhooks backlog CLIENT_ID [--sandbox] [--json]",
  summary: "What waits to be sent to the app's endpoints: attempts due now, their events, how long the oldest has waited; retries scheduled later",
  options: SANDBOX_OPTION,
  positionals: ["CLIENT_ID"],
  async run({ args, values }): Promise<Output> {
    const { webhooks, schemas, actor } = await webhookServices();
    const backlog = await webhooks.getWebhookBacklog(clientIdOf(schemas, args[0]), actor, worldOf(values));
    const waiting =
      backlog.waiting === 0
        ? "Nothing waits to be sent."
        : `${backlog.waiting} attempt${backlog.waiting === 1 ? "" : "s"} waiting (${backlog.events} event${backlog.events === 1 ? "" : "s"}), the oldest due for ${backlog.oldest_waiting_seconds} s.`;
    return { json: backlog, text: `${waiting} ${backlog.retries_scheduled} retr${backlog.retries_scheduled === 1 ? "y" : "ies"} scheduled later.` };
  },
};

export const appsWebhooksRedeliver: Command = {
  usage: "apps webhooks redeliver CLIENT_ID DELIVERY_ID [--sandbox] [--json]",
  summary: "Send a delivery's event again (same event id), as a new attempt",
  options: SANDBOX_OPTION,
  positionals: ["CLIENT_ID", "DELIVERY_ID"],
  async run({ args, values }) {
    const { webhooks, schemas, actor } = await webhookServices();
    const sent = await webhooks.redeliver(clientIdOf(schemas, args[0]), args[1] ?? "", actor, worldOf(values));
    return { json: sent, text: `Queued redelivery ${sent.delivery_id}.` };
  },
};
