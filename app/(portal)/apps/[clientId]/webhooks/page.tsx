import type { Metadata } from "next";
import Link from "next/link";
import { z } from "zod";
import { AppPageHeader } from "@/components/apps/app-page-header";
import { DeliveryLog } from "@/components/apps/delivery-log";
import { RefreshWhilePending } from "@/components/apps/refresh-while-pending";
import { WebhookEndpoints } from "@/components/apps/webhook-endpoints";
import { WorldSwitch } from "@/components/apps/world-switch";
import { buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { env } from "@/lib/env";
import { EVENT_AUDIENCE, MAX_WEBHOOKS_PER_APP } from "@/lib/schemas/events";
import { WEBHOOK_ID_PATTERN } from "@/lib/schemas/webhooks";
import { requireAppPage } from "@/lib/portal/session";
import { capabilities } from "@/lib/services/app-access";
import { getWebhookBacklog, listDeliveries, listWebhooks, receivableTypes } from "@/lib/services/webhooks";
import type { WebhookBacklogView } from "@/lib/schemas/webhooks";

export const metadata: Metadata = { title: "Webhooks" };

/**
 * An app's Webhooks tab. Its team and platform admins read the endpoints and the delivery
 * log; the owner and team admins (`handleSecrets`: they hold signing secrets) manage them. The log's
 * filters live in the URL, parsed here with zod; junk falls back to no filter (never a 500).
 * `?world=sandbox` shows the app's sandbox endpoints and their log (its sandbox events only).
 */
const querySchema = z.object({
  world: z.enum(["live", "sandbox"]).optional().catch(undefined),
  webhook: z.string().regex(WEBHOOK_ID_PATTERN).optional().catch(undefined),
  status: z.enum(["failed", "delivered"]).optional().catch(undefined),
});

const LOG_LIMIT = 50;
/** A pending attempt due within this long keeps the log refreshing itself. */
const REFRESH_HORIZON_S = 60;

export default async function AppWebhooksPage({
  params,
  searchParams,
}: {
  params: Promise<{ clientId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const now = new Date();
  const { actor, app } = await requireAppPage(params);
  const query = querySchema.parse(await searchParams);
  const can = capabilities(app, actor);
  const canManage = can.handleSecrets;
  const world = { sandbox: query.world === "sandbox" };
  const base = `/apps/${app.clientId}/webhooks`;
  const here = world.sandbox ? `${base}?world=sandbox` : base;
  const [endpoints, deliveries, backlog] = await Promise.all([
    listWebhooks(app.clientId, actor, world),
    listDeliveries(app.clientId, { webhook: query.webhook, status: query.status, limit: LOG_LIMIT }, actor, world),
    getWebhookBacklog(app.clientId, actor, world),
  ]);
  const receivable = receivableTypes(app, world).map((type) => ({ type, description: EVENT_AUDIENCE[type].description }));
  const urls = Object.fromEntries(endpoints.map((w) => [w.id, w.url]));
  const nowS = now.getTime() / 1000;
  const refreshing = deliveries.some((d) => d.state === "pending" && d.created_at <= nowS + REFRESH_HORIZON_S);
  const filtered = Boolean(query.webhook || query.status);

  return (
    <div className="space-y-8">
      <AppPageHeader app={app} current="webhooks" onTeam={can.onTeam} />

      <WorldSwitch href={base} sandbox={world.sandbox} />

      <Card
        title={world.sandbox ? "Sandbox webhook endpoints" : "Webhook endpoints"}
        description={
          world.sandbox ? (
            <>
              These endpoints receive only the events of the app&apos;s sandbox (its synthetic people&apos;s posts and
              notifications, and events you trigger), never live ones; live endpoints never receive sandbox events. Signing,
              retries and the log work as for live endpoints.{" "}
              <Link href="/docs/events#sandbox" className="underline">
                Docs
              </Link>
            </>
          ) : (
            <>
              The platform POSTs each event the app may receive to these URLs, signed with the endpoint&apos;s secret (Standard
              Webhooks headers), and retries failed deliveries with backoff for at least 24 hours.{" "}
              <Link href="/docs/events" className="underline">
                Docs
              </Link>
            </>
          )
        }
      >
        {canManage ? null : (
          <p className="mb-4 flex items-start gap-2 text-sm text-slate-600" data-testid="webhooks-read-only">
            <Icon name="lock" className="mt-0.5 size-4 shrink-0" />
            <span>
              {can.onTeam
                ? "You can read the endpoints and the delivery log. Only the owner and team admins can change endpoints, see signing secrets or send events."
                : "Read only: only the app's owner and team admins manage its webhooks and see their signing secrets."}
            </span>
          </p>
        )}
        <WebhookEndpoints
          clientId={app.clientId}
          sandbox={world.sandbox}
          endpoints={endpoints}
          receivable={receivable}
          max={MAX_WEBHOOKS_PER_APP}
          canManage={canManage}
          nowMs={now.getTime()}
          urlRule={{ allowPrivate: env().WEBHOOKS_ALLOW_PRIVATE, allowedPorts: env().WEBHOOK_ALLOWED_PORTS }}
        />
      </Card>

      <Card
        id="delivery-log"
        title="Delivery log"
        description={`Every attempt of the last 7 days, newest first (the latest ${LOG_LIMIT} shown). A failed attempt is retried with the same event id; a redelivery sends the event again as a new first attempt.`}
      >
        <RefreshWhilePending active={refreshing} />
        <p className="mb-4 text-sm text-slate-700" data-testid="delivery-backlog">
          {describeBacklog(backlog)}
        </p>
        <form
          // Keyed by the filter: after "Clear" (a client navigation) the selects show the URL's filter again.
          key={`${query.world ?? ""}-${query.webhook ?? ""}-${query.status ?? ""}`}
          role="search"
          aria-label="Filter the delivery log"
          action={`${base}#delivery-log`}
          method="get"
          className="mb-4 grid gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,12rem)_auto] sm:items-end"
        >
          {world.sandbox ? <input type="hidden" name="world" value="sandbox" /> : null}
          <div className="min-w-0">
            <label htmlFor="log-webhook" className="block text-sm font-medium text-slate-900">
              Endpoint
            </label>
            <select id="log-webhook" name="webhook" defaultValue={query.webhook ?? ""} className={`${inputClasses} mt-1 truncate`}>
              <option value="">All endpoints</option>
              {endpoints.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.url}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="log-status" className="block text-sm font-medium text-slate-900">
              Result
            </label>
            <select id="log-status" name="status" defaultValue={query.status ?? ""} className={`${inputClasses} mt-1`}>
              <option value="">Any</option>
              <option value="failed">Failed</option>
              <option value="delivered">Delivered</option>
            </select>
          </div>
          <div className="flex gap-2">
            <button type="submit" className={buttonClasses("secondary")}>
              Filter
            </button>
            {filtered ? (
              <Link href={`${here}#delivery-log`} prefetch={false} className={buttonClasses("ghost")}>
                Clear
              </Link>
            ) : null}
          </div>
        </form>
        {deliveries.length ? (
          <DeliveryLog clientId={app.clientId} deliveries={deliveries} urls={urls} now={now} canRedeliver={canManage} sandbox={world.sandbox} />
        ) : (
          <p className="rounded-lg border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600" data-testid="delivery-log-empty">
            {filtered
              ? "No deliveries match these filters."
              : endpoints.length
                ? "No deliveries yet. Send a test event to an endpoint to see one here."
                : "No deliveries yet: add an endpoint first."}
          </p>
        )}
      </Card>
    </div>
  );
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

function waited(seconds: number): string {
  if (seconds < 120) return plural(seconds, "second", "seconds");
  if (seconds < 7200) return plural(Math.floor(seconds / 60), "minute", "minutes");
  return plural(Math.floor(seconds / 3600), "hour", "hours");
}

/** The backlog in one sentence: what waits now and since when, and the retries scheduled later. */
function describeBacklog(backlog: WebhookBacklogView): string {
  const now =
    backlog.waiting === 0
      ? "Nothing is waiting to be sent"
      : `${plural(backlog.waiting, "attempt", "attempts")} waiting to be sent (${plural(backlog.events, "event", "events")}); the oldest has waited ${waited(backlog.oldest_waiting_seconds ?? 0)}`;
  return backlog.retries_scheduled ? `${now}; ${plural(backlog.retries_scheduled, "retry", "retries")} scheduled later.` : `${now}.`;
}
