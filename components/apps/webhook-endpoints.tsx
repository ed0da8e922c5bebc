"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition, type ReactNode } from "react";
import { toast } from "sonner";
import {
  addWebhookAction,
  removeWebhookAction,
  rotateWebhookSecretAction,
  sendTestEventAction,
  setWebhookEnabledAction,
} from "@/lib/actions/webhooks";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { FieldError, inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { TimeAgo } from "@/components/ui/time-ago";
import { describeWebhookUrlRule, webhookInputSchema, type WebhookUrlRule, type WebhookView } from "@/lib/schemas/webhooks";
import { SecretReveal } from "./secret-reveal";

/** An event type the app may receive, with what it carries (lib/schemas/events.ts EVENT_AUDIENCE). */
export interface ReceivableType {
  type: string;
  description: string;
}

type Reveal = { webhookId: string; url: string; secret: string; via: "add" | "rotate" };

const SECRET_NOTE =
  "We keep it encrypted, only to sign deliveries, and never show it again. Store it now where your receiver reads its configuration (a secret manager or an environment variable, never source code or logs): it verifies the webhook-signature header of every delivery (Standard Webhooks). If you lose it, rotate the secret.";

const NEXT_STEP: Record<Reveal["via"], ReactNode> = {
  add: "Next: give it to your receiver, then send a test event.",
  rotate: "The old secret keeps signing alongside this one for 24 hours (two signatures in each webhook-signature header): deploy this one before then.",
};

/** Why an endpoint is off, in the words of lib/events/worker.ts settleEndpoint. */
export function disabledReasonText(reason: string | null): string {
  if (reason === "gone") return "Disabled: the receiver answered 410 Gone.";
  if (reason === "failing") return "Disabled: every delivery failed for 3 days.";
  return "Disabled by a team member.";
}

function EventList({ events }: { events: string[] }) {
  if (events.length === 0) return <span>All events the app may receive</span>;
  return (
    <span className="inline-flex flex-wrap gap-1.5">
      {events.map((e) => (
        <code key={e} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-800">
          {e}
        </code>
      ))}
    </span>
  );
}

/**
 * The endpoints of the Webhooks tab: the list for everyone who may see the app, and for
 * the owner and team admins (`canManage`) adding, enabling, disabling, removing, rotating the
 * signing secret and sending a test event. Secrets come back from the actions once and live only in
 * this component's state: a reload does not show them again.
 */
export function WebhookEndpoints({
  clientId,
  endpoints,
  receivable,
  max,
  canManage,
  nowMs,
  urlRule,
  sandbox = false,
}: {
  clientId: string;
  /** What the server accepts as a URL here, so the form's hint says the same. */
  urlRule: WebhookUrlRule;
  /** These are the endpoints of the app's sandbox (its sandbox events only). */
  sandbox?: boolean;
  endpoints: WebhookView[];
  receivable: ReceivableType[];
  max: number;
  canManage: boolean;
  /** The server's clock for this render (TimeAgo renders the same text on both sides). */
  nowMs: number;
}) {
  const router = useRouter();
  const now = new Date(nowMs);
  const [reveal, setReveal] = useState<Reveal | null>(null);
  const [removing, setRemoving] = useState<WebhookView | null>(null);
  const [rotating, setRotating] = useState<WebhookView | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const listId = useId();

  function run<T>(key: string, action: () => Promise<{ ok: true; data: T } | { ok: false; error: { message: string } }>, done: (data: T) => void) {
    setBusy(key);
    startTransition(async () => {
      const result = await action();
      setBusy(null);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      done(result.data);
      router.refresh();
    });
  }

  return (
    <div className="space-y-5">
      {reveal ? (
        <SecretReveal
          key={`${reveal.webhookId}-${reveal.secret.slice(-6)}`}
          secret={reveal.secret}
          title="Signing secret — store it now, it will not be shown again"
          label="Signing secret"
          inputTestId="signing-secret"
          note={SECRET_NOTE}
          next={
            <>
              <span className="block font-normal break-all">
                For <code className="font-mono text-xs">{reveal.url}</code>
              </span>
              <span className="mt-1 block">{NEXT_STEP[reveal.via]}</span>
            </>
          }
          focus
          onDone={() => setReveal(null)}
        />
      ) : null}

      <div>
        <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
          <h3 id={listId} className="text-sm font-semibold text-slate-900">
            Endpoints
          </h3>
          <p className="text-xs text-slate-600">
            {endpoints.length} of {max}
          </p>
        </div>
        {endpoints.length ? (
          <ul aria-labelledby={listId} className="mt-2 divide-y divide-slate-100 rounded-lg border border-slate-200">
            {endpoints.map((w) => (
              <li key={w.id} className="px-3 py-4 sm:px-4" data-testid="webhook-row" data-webhook-id={w.id}>
                <p className="font-mono text-sm font-medium break-all text-slate-900" data-testid="webhook-url">
                  {w.url}
                </p>
                <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-600">
                  {w.status === "enabled" ? (
                    <Badge tone="green" dot>
                      Enabled
                    </Badge>
                  ) : (
                    <Badge tone="amber" dot>
                      Disabled
                    </Badge>
                  )}
                  <code className="font-mono break-all">{w.id}</code>
                  <span>
                    Created <TimeAgo date={new Date(w.created_at * 1000)} now={now} />
                  </span>
                </div>
                {w.status === "disabled" ? (
                  <p className="mt-2 text-sm text-amber-800" data-testid="webhook-disabled-reason">
                    {disabledReasonText(w.disabled_reason)}
                  </p>
                ) : w.failing_since ? (
                  <p className="mt-2 text-sm text-amber-800">
                    Deliveries failing since <TimeAgo date={new Date(w.failing_since * 1000)} now={now} />; after 3 days of failures
                    the endpoint is disabled.
                  </p>
                ) : null}
                <p className="mt-2 text-sm text-slate-700">
                  <span className="font-medium text-slate-900">Events: </span>
                  <EventList events={w.events} />
                </p>
                {canManage ? (
                  <div className="mt-3 flex flex-wrap gap-2">
                    <Button
                      size="sm"
                      variant="secondary"
                      disabled={pending || w.status !== "enabled"}
                      loading={busy === `test-${w.id}`}
                      title={w.status !== "enabled" ? "Enable the endpoint to send a test event" : undefined}
                      onClick={() =>
                        run(`test-${w.id}`, () => sendTestEventAction(clientId, w.id, sandbox), (sent) =>
                          toast.success(`Test event ${sent.event_id} sent: it shows in the delivery log below.`),
                        )
                      }
                    >
                      <Icon name="zap" /> Send test event
                    </Button>
                    <Button
                      size="sm"
                      variant="secondary"
                      disabled={pending}
                      loading={busy === `enable-${w.id}`}
                      onClick={() =>
                        run(`enable-${w.id}`, () => setWebhookEnabledAction(clientId, w.id, w.status !== "enabled", sandbox), (view) =>
                          toast.success(view.status === "enabled" ? "Endpoint enabled." : "Endpoint disabled: nothing is delivered to it."),
                        )
                      }
                    >
                      {w.status === "enabled" ? "Disable" : "Enable"}
                    </Button>
                    <Button size="sm" variant="secondary" disabled={pending} onClick={() => setRotating(w)}>
                      <Icon name="key" /> Rotate secret
                    </Button>
                    <Button size="sm" variant="danger-outline" disabled={pending} onClick={() => setRemoving(w)}>
                      <Icon name="trash" /> Remove
                    </Button>
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 rounded-lg border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600" data-testid="webhooks-empty">
            No endpoints yet.{" "}
            {canManage
              ? "Add one below: the platform then posts each event to it, signed, and retries for at least 24 hours."
              : "The owner or a team admin can add one."}
          </p>
        )}
      </div>

      {canManage ? (
        endpoints.length >= max ? (
          <p className="rounded-lg bg-slate-50 p-4 text-sm text-slate-700">
            {max} endpoints is the most an app can have. Remove one to add another.
          </p>
        ) : (
          <AddEndpointForm
            clientId={clientId}
            sandbox={sandbox}
            receivable={receivable}
            urlRule={urlRule}
            onAdded={(created) => {
              setReveal({ webhookId: created.id, url: created.url, secret: created.secret, via: "add" });
              router.refresh();
            }}
          />
        )
      ) : null}

      {canManage ? (
        <>
          <Dialog
            open={removing !== null}
            onClose={() => (pending ? undefined : setRemoving(null))}
            title="Remove this endpoint?"
            description="Nothing more is delivered to it, retries still scheduled are dropped, and its delivery log goes with it. Its signing secret stops working."
            footer={
              <>
                <Button variant="secondary" onClick={() => setRemoving(null)} disabled={pending}>
                  Cancel
                </Button>
                <Button
                  variant="danger"
                  loading={busy === "remove"}
                  onClick={() => {
                    const target = removing;
                    if (!target) return;
                    run("remove", () => removeWebhookAction(clientId, target.id, sandbox), () => {
                      setRemoving(null);
                      if (reveal?.webhookId === target.id) setReveal(null);
                      toast.success("Endpoint removed.");
                    });
                  }}
                >
                  Remove endpoint
                </Button>
              </>
            }
          >
            {removing ? <p className="font-mono text-sm break-all text-slate-900">{removing.url}</p> : null}
          </Dialog>

          <Dialog
            open={rotating !== null}
            onClose={() => (pending ? undefined : setRotating(null))}
            title="Rotate the signing secret?"
            description="A new secret is shown once. The current one keeps signing alongside it for 24 hours, so your receiver keeps verifying deliveries while you deploy the new one."
            footer={
              <>
                <Button variant="secondary" onClick={() => setRotating(null)} disabled={pending}>
                  Cancel
                </Button>
                <Button
                  loading={busy === "rotate"}
                  onClick={() => {
                    const target = rotating;
                    if (!target) return;
                    run("rotate", () => rotateWebhookSecretAction(clientId, target.id, sandbox), (rotated) => {
                      setRotating(null);
                      setReveal({ webhookId: rotated.id, url: target.url, secret: rotated.secret, via: "rotate" });
                      toast.success("New signing secret: the old one keeps signing for 24 hours.");
                    });
                  }}
                >
                  Rotate secret
                </Button>
              </>
            }
          >
            {rotating ? <p className="font-mono text-sm break-all text-slate-900">{rotating.url}</p> : null}
          </Dialog>
        </>
      ) : null}
    </div>
  );
}

/** URL + the event types to send (none chosen: every type the app may receive, now and later). */
function AddEndpointForm({
  clientId,
  sandbox,
  receivable,
  urlRule,
  onAdded,
}: {
  clientId: string;
  sandbox: boolean;
  urlRule: WebhookUrlRule;
  receivable: ReceivableType[];
  onAdded: (created: WebhookView & { secret: string }) => void;
}) {
  const [url, setUrl] = useState("");
  const [mode, setMode] = useState<"all" | "some">("all");
  const [events, setEvents] = useState<string[]>([]);
  const [errors, setErrors] = useState<{ url?: string; events?: string; form?: string }>({});
  const [pending, startTransition] = useTransition();
  const urlId = useId();
  const headingId = useId();

  function submit(e: React.FormEvent) {
    e.preventDefault();
    const input = { url, events: mode === "all" ? [] : events };
    const parsed = webhookInputSchema.safeParse(input);
    if (!parsed.success) {
      setErrors({ url: parsed.error.issues.find((i) => i.path[0] === "url")?.message, events: parsed.error.issues.find((i) => i.path[0] === "events")?.message });
      return;
    }
    if (mode === "some" && events.length === 0) {
      setErrors({ events: "Choose at least one event type, or send all of them." });
      return;
    }
    setErrors({});
    startTransition(async () => {
      const result = await addWebhookAction(clientId, parsed.data, sandbox);
      if (!result.ok) {
        const fields = result.error.fields ?? {};
        // The service names the URL's problem (https only, no private addresses…) or a refused type.
        const aboutEvents = /receive|event/i.test(result.error.message) && !fields.url;
        setErrors(aboutEvents ? { events: fields.events ?? result.error.message } : { url: fields.url ?? result.error.message });
        return;
      }
      setUrl("");
      setMode("all");
      setEvents([]);
      toast.success("Endpoint added. Copy its signing secret now.");
      onAdded(result.data);
    });
  }

  return (
    <form onSubmit={submit} noValidate aria-labelledby={headingId} className="space-y-4 rounded-lg bg-slate-50 p-4" data-testid="add-webhook">
      <h3 id={headingId} className="text-sm font-semibold text-slate-900">
        Add an endpoint
      </h3>
      <div>
        <label htmlFor={urlId} className="block text-sm font-medium text-slate-900">
          Endpoint URL
        </label>
        <p id={`${urlId}-hint`} className="mt-1 text-sm text-slate-600">
          {describeWebhookUrlRule(urlRule)} Each event is POSTed to it as JSON.
        </p>
        <input
          id={urlId}
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://example.com/webhooks/platform"
          aria-invalid={errors.url ? true : undefined}
          aria-describedby={`${urlId}-hint${errors.url ? ` ${urlId}-error` : ""}`}
          className={`${inputClasses} mt-2 font-mono`}
        />
        <FieldError id={`${urlId}-error`} message={errors.url} />
      </div>
      <fieldset>
        <legend className="text-sm font-medium text-slate-900">Events to send</legend>
        <div className="mt-2 space-y-2">
          <label className="flex items-start gap-2 text-sm text-slate-800">
            <input type="radio" name="webhook-events-mode" className="mt-0.5 size-4" checked={mode === "all"} onChange={() => setMode("all")} />
            <span>
              All events the app may receive
              <span className="block text-slate-600">Including types it may receive later, when more scopes are approved.</span>
            </span>
          </label>
          <label className="flex items-start gap-2 text-sm text-slate-800">
            <input type="radio" name="webhook-events-mode" className="mt-0.5 size-4" checked={mode === "some"} onChange={() => setMode("some")} />
            <span>Only the types chosen below</span>
          </label>
        </div>
        {mode === "some" ? (
          <ul className="mt-3 space-y-3 border-l-2 border-slate-200 pl-4">
            {receivable.map((r) => (
              <li key={r.type}>
                <label className="flex items-start gap-2 text-sm">
                  <input
                    type="checkbox"
                    className="mt-0.5 size-4 shrink-0"
                    checked={events.includes(r.type)}
                    onChange={(e) => setEvents((list) => (e.target.checked ? [...list, r.type] : list.filter((t) => t !== r.type)))}
                  />
                  <span className="min-w-0">
                    <code className="font-mono text-xs font-medium text-slate-900">{r.type}</code>
                    <span className="block break-words text-slate-600">{r.description.replace(/`/g, "")}</span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        ) : null}
        <FieldError message={errors.events} />
      </fieldset>
      <Button type="submit" loading={pending}>
        <Icon name="plus" /> Add endpoint
      </Button>
    </form>
  );
}
