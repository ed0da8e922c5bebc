import type { Metadata } from "next";
import Link from "next/link";
import { Fragment, type ReactNode } from "react";
import { DocsPage } from "@/components/docs/docs-page";
import { CodeBlock } from "@/components/ui/code-block";
import { webhookQuickstartSnippets } from "@/lib/quickstarts";
import { TableScroll } from "@/components/ui/table-scroll";
import { env } from "@/lib/env";
import { EVENT_EXAMPLES, eventAudienceText, eventDataFields, formatSeconds } from "@/lib/schemas/event-catalog";
import { EVENT_AUDIENCE, EVENT_TYPES, MAX_STREAMS_PER_APP, MAX_STREAMS_PER_USER, MAX_WEBHOOKS_PER_APP, STREAM_RESUME_WINDOW_HOURS } from "@/lib/schemas/events";
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE } from "@/lib/schemas/webhooks";

export const metadata: Metadata = { title: "Events and webhooks" };

/** The catalog's descriptions mark code with backticks (they are also the OpenAPI descriptions). */
function withCode(text: string): ReactNode {
  return text.split("`").map((part, i) => (i % 2 ? <code key={i}>{part}</code> : <Fragment key={i}>{part}</Fragment>));
}

export default function EventsPage() {
  const { API_URL, WEBHOOK_RETRY_SCHEDULE, WEBHOOK_ALLOWED_PORTS } = env();
  const schedule = DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  const cumulative = schedule.map((_, i) => schedule.slice(0, i + 1).reduce((a, b) => a + b, 0));
  const total = cumulative.at(-1) ?? 0;
  const customSchedule = WEBHOOK_RETRY_SCHEDULE.join(",") !== schedule.join(",");
  return (
    <DocsPage
      path="/docs/events"
      title="Events and webhooks"
      lead="Your app hears what happens on the platform as it happens: chat messages, notifications, people authorizing or revoking your app, review decisions. Receive them as signed webhooks at your own URL, or on a live event stream when your app has no public URL."
    >
      <h2 id="overview">Two ways to listen</h2>
      <ul>
        <li>
          <strong>Webhooks</strong>: the platform POSTs each event to your endpoint, signed after the{" "}
          <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> specification, and retries for more than a
          day until your endpoint answers with a 2xx. Up to {MAX_WEBHOOKS_PER_APP} endpoints per app.
        </li>
        <li>
          <strong>The event stream</strong>: <code>GET /api/v1/events</code> keeps a connection open and sends the same
          events as Server-Sent Events; reconnect with <code>Last-Event-ID</code> and nothing is missed. For bots, CLIs and
          apps behind a firewall.
        </li>
      </ul>
      <p>
        Both carry the same event bodies, and an app never receives an event it could not read through the API with its
        scopes and the grants people gave it.
      </p>

      <h2 id="catalog">The event catalog</h2>
      <TableScroll label="Event types">
        <table className="min-w-[38rem]">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Who receives it</th>
              <th scope="col">What happened</th>
            </tr>
          </thead>
          <tbody>
            {EVENT_TYPES.map((type) => (
              <tr key={type} data-testid="event-type">
                <td>
                  <a href={`#${type}`}>
                    <code>{type}</code>
                  </a>
                </td>
                <td>{withCode(eventAudienceText(type))}</td>
                <td>{withCode(EVENT_AUDIENCE[type].description)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {EVENT_TYPES.map((type) => (
        <section key={type} aria-labelledby={type}>
          <h3 id={type} className="scroll-mt-24">
            <code>{type}</code>
          </h3>
          <p>
            <code>data</code>:{" "}
            {eventDataFields(type).map((f, i) => (
              <Fragment key={f.name}>
                {i > 0 ? ", " : ""}
                <code>{f.name}</code>
                {f.required ? "" : " (optional)"}
              </Fragment>
            ))}
            .
          </p>
          <CodeBlock title={`${type} example`} language="json" code={JSON.stringify(EVENT_EXAMPLES[type], null, 2)} />
        </section>
      ))}
      <p>
        The <Link href="/docs/api-reference">API reference</Link> and the <code>webhooks</code> section of{" "}
        <a href="/api/v1/openapi.json">the OpenAPI document</a> give each body&apos;s full schema.
      </p>

      <h2 id="envelope">The envelope</h2>
      <CodeBlock
        title="Every event"
        language="json"
        code={`{ "id": "evt_…", "type": "chat.message.created", "created_at": 1764000000, "data": { … } }`}
      />
      <ul>
        <li>
          <code>id</code>: <code>evt_</code> and 24 characters. It stays the same on every retry and every redelivery of
          the event, and it is the stream&apos;s <code>id:</code> too: delivery is <strong>at least once</strong>, so keep
          the ids you have handled (a day&apos;s worth is plenty) and skip one you have seen.
        </li>
        <li>
          <code>type</code>: one of the types above. Ignore types you do not know; new ones may be added.
        </li>
        <li>
          <code>created_at</code>: Unix seconds at which what the event reports was committed. Events are written in the
          same transaction as the change, so an event never reports something that did not happen.
        </li>
        <li>
          <code>data</code>: the type&apos;s payload. Webhooks may arrive out of order (a retried event comes after
          newer ones); order by <code>created_at</code> if it matters.
        </li>
      </ul>

      <h2 id="endpoints">Add an endpoint</h2>
      <p>
        On your app&apos;s <strong>Webhooks</strong> tab (<Link href="/apps">My apps</Link> → your app → Webhooks) the
        owner and team admins add an endpoint: an <code>https</code> URL and the event types it wants (none ticked: every
        type the app may receive). Viewers see the endpoints and the delivery log. The signing secret,{" "}
        <code>whsec_…</code>, is shown <strong>once</strong>; the platform keeps it encrypted. An endpoint can be
        disabled and enabled again; nothing is sent to a disabled endpoint. Operators do the same with the CLI (
        <a href="#cli">below</a>).
      </p>

      <h2 id="verify">Verify every delivery</h2>
      <p>Each delivery is a <code>POST</code> with the event as its JSON body and three headers:</p>
      <TableScroll label="Webhook headers">
        <table>
          <tbody>
            <tr>
              <th scope="row">
                <code>webhook-id</code>
              </th>
              <td>the event&apos;s id (deduplicate by it)</td>
            </tr>
            <tr>
              <th scope="row">
                <code>webhook-timestamp</code>
              </th>
              <td>Unix seconds at which this attempt was signed</td>
            </tr>
            <tr>
              <th scope="row">
                <code>webhook-signature</code>
              </th>
              <td>
                <code>v1,&lt;base64 HMAC-SHA256&gt;</code> of <code>{"${webhook-id}.${webhook-timestamp}.${body}"}</code>,
                keyed with the base64-decoded part of your secret after <code>whsec_</code>; several space-separated during
                a rotation
              </td>
            </tr>
          </tbody>
        </table>
      </TableScroll>
      <p>
        Verify with the raw body, exactly as received (not re-serialized JSON), refuse a timestamp more than 5 minutes
        away from your clock (replays), and answer quickly: do the work after answering. The{" "}
        <code>standardwebhooks</code> package (npm, and PyPI for Python) and the specification&apos;s libraries for other
        languages do all of it, and so does the <Link href="/docs/sdk">TypeScript SDK</Link>&apos;s{" "}
        <code>verifyWebhook(body, headers, secrets)</code> (several secrets: during a rotation).
      </p>
      <p>
        Two receivers, both run by our test suite against real deliveries: one on the SDK, one in Python&apos;s standard
        library alone (the check by hand is ten lines).
      </p>
      {webhookQuickstartSnippets(env().APP_URL).map((snippet) => (
        <CodeBlock key={snippet.title} title={snippet.title} language={snippet.fence} code={snippet.code} />
      ))}

      <h3 id="rotation">Rotate the secret</h3>
      <p>
        <strong>Rotate secret</strong> on the Webhooks tab (or <code>apps webhooks rotate-secret</code>) shows a new
        secret once. For the next 24 hours every delivery carries two signatures, one with the new secret and one with the
        old, so a receiver holding either verifies it: deploy the new secret within that day. After 24 hours only the new
        secret signs.
      </p>

      <h2 id="retries">Delivery and retries</h2>
      <p>
        Any <code>2xx</code> answer within 10 seconds is a delivery. Anything else — another status, a redirect (never
        followed), a timeout, a refused connection, a TLS or DNS error — is a failed attempt, and the event is sent again
        with the <strong>same id</strong>, each wait varied by ±20 % so that retries do not arrive in bursts:
      </p>
      <TableScroll label="Retry schedule">
        <table>
          <thead>
            <tr>
              <th scope="col">Attempt</th>
              <th scope="col">Waits after the previous one</th>
              <th scope="col">Since the first attempt</th>
            </tr>
          </thead>
          <tbody>
            <tr data-testid="retry-row">
              <td>1</td>
              <td>at once</td>
              <td>–</td>
            </tr>
            {schedule.map((wait, i) => (
              <tr key={i} data-testid="retry-row">
                <td>{i + 2}</td>
                <td>{formatSeconds(wait)}</td>
                <td>{formatSeconds(cumulative[i]!)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <p>
        That is {schedule.length + 1} attempts over about {Math.round(total / 3600)} hours.
        {customSchedule
          ? ` This installation's operator set another schedule: ${WEBHOOK_RETRY_SCHEDULE.map(formatSeconds).join(", ")}.`
          : ""}
      </p>
      <ul>
        <li>
          <code>410 Gone</code> disables the endpoint at once: nothing more is sent to it until someone enables it again.
        </li>
        <li>
          An endpoint whose deliveries have all failed for <strong>3 days</strong> (since its last success) is disabled,
          and the app&apos;s owner gets a notification saying so. Fix the receiver, then enable it again.
        </li>
        <li>
          At most 8 deliveries to one endpoint, and a quarter of a server process&apos;s delivery slots per app (its live
          and sandbox endpoints together), are in flight at once; apps are served in turn. A slow receiver waits for
          its own app&apos;s deliveries and never holds up other apps&apos;.
        </li>
        <li>
          Each attempt has one 10-second deadline, whatever connections it uses, and is sent once: it is sent again on
          a new connection only when a kept connection turned out closed before any of it was written.
        </li>
        <li>
          At most the first 4 KiB of your answer is read (the log keeps the first 1 KiB); the body of a 2xx is
          ignored.
        </li>
      </ul>

      <h2 id="ssrf">Which URLs we call</h2>
      <p>
        An endpoint&apos;s host name is resolved at every delivery, and the delivery is refused (error{" "}
        <code>blocked_address</code>) when any of its addresses is loopback, private (10/8, 172.16/12, 192.168/16,
        100.64/10, <code>fc00::/7</code>), link-local, multicast, reserved or a cloud metadata address such as{" "}
        <code>169.254.169.254</code>. The connection then goes to the address that was checked, so a second DNS answer
        cannot send it elsewhere, with your host name in <code>Host</code> and TLS SNI. Redirects are not followed.
        Tunnel and translation prefixes are refused too (6to4 <code>2002::/16</code> and its relay{" "}
        <code>192.88.99.0/24</code>, Teredo <code>2001::/32</code>, <code>64:ff9b:1::/48</code>), and an IPv6 address
        carrying an IPv4 one (<code>::ffff:0:0/96</code>, NAT64 <code>64:ff9b::/96</code>) is judged as that IPv4
        address. The URL&apos;s port must be {WEBHOOK_ALLOWED_PORTS.join(" or ")} (443 when none is written). A URL
        with such an address or port written in it, or with user info, is refused when you add it.
      </p>
      <p>
        <strong>Development and tests only:</strong> the operator setting <code>WEBHOOKS_ALLOW_PRIVATE=1</code> lets
        deliveries reach loopback and private addresses on any port, over plain <code>http</code> too, so a receiver on your own
        machine works against a local platform. It is off by default and must stay off in production; link-local and
        metadata addresses are refused even with it.
      </p>

      <h2 id="log">The delivery log and redelivery</h2>
      <p>
        The Webhooks tab lists every attempt of the last 7 days, newest first: the event type and id, the attempt number,
        the HTTP status or the error (<code>timeout</code>, <code>refused</code>, <code>tls</code>, <code>dns</code>,{" "}
        <code>blocked_address</code>, <code>network</code>), the latency, the first 1 KiB of your answer and when the next
        retry is due. <strong>Redeliver</strong> sends any delivery&apos;s event again (same event id) as a new attempt;{" "}
        <strong>Send test event</strong> sends a <code>ping</code> to one endpoint.
      </p>
      <p>
        Above the log, the tab says how many attempts wait to be sent now and how long the oldest has waited (and how
        many retries are scheduled later); <code>apps webhooks backlog CLIENT_ID</code> prints the same. When deliveries
        fall behind, each app&apos;s oldest events go first and no app&apos;s backlog holds up another&apos;s; the event
        stream does not wait for webhooks.
      </p>
      <p>
        Who may receive an event is asked again before every retry and redelivery. An attempt that may no longer be
        sent is logged as failed, without a next attempt, with the reason as its error: <code>consent_revoked</code>{" "}
        (the person revoked the app, or their account was disabled), <code>scope_missing</code> (the app no longer has
        the scope the type needs), <code>app_not_approved</code> or <code>app_suspended</code>; a redelivery that may
        not be sent is refused with the same reason.
      </p>

      <h2 id="stream">The event stream</h2>
      <p>
        <code>GET /api/v1/events</code> answers with <code>text/event-stream</code> and stays open. Use an app token (the
        app&apos;s events) or a user-delegated token (that person&apos;s events, plus the app-wide ones its scopes allow,
        such as chat messages with <code>svc:chat.read</code>). <code>?types=</code> takes a comma-separated list of
        types; without it you get every type the token may see. <code>ping</code> goes to webhooks only.
      </p>
      <CodeBlock
        title="Follow the chat with curl"
        code={`API=${API_URL}
curl -N -H "Authorization: Bearer $TOKEN" "$API/events?types=chat.message.created"`}
      />
      <CodeBlock
        title="What arrives"
        language="text"
        code={`id: ${EVENT_EXAMPLES["chat.message.created"].id}
event: chat.message.created
data: ${JSON.stringify(EVENT_EXAMPLES["chat.message.created"])}
`}
      />
      <ul>
        <li>
          Each event is an <code>id:</code> line (the event id), an <code>event:</code> line (its type) and a{" "}
          <code>data:</code> line with the same body a webhook receives.
        </li>
        <li>
          <strong>Resume</strong>: reconnect with the header <code>Last-Event-ID: evt_…</code> (browsers&apos;{" "}
          <code>EventSource</code> does it for you; or the query parameter <code>last_event_id</code>) and the stream
          continues right after that event, without a gap or a repeat, for {STREAM_RESUME_WINDOW_HOURS} hours back. An older
          or unknown id is refused with <code>400 invalid_request</code>: open a new stream without it.
        </li>
        <li>
          <strong>Heartbeats</strong>: a comment line (starting with <code>:</code>) every 15 seconds keeps proxies from
          closing an idle connection; if none arrives for a minute, reconnect.
        </li>
        <li>
          <strong>Limit</strong>: at most {MAX_STREAMS_PER_APP} open streams per app on each server process, and{" "}
          {MAX_STREAMS_PER_USER} of them for one person&apos;s tokens; one more is refused with{" "}
          <code>429 rate_limited</code>.
        </li>
        <li>
          <strong>Ends with its token</strong>: the stream ends when its access token expires, and within moments of the
          token&apos;s revocation, a roll of the app&apos;s secret, the app&apos;s suspension or deletion, or, for a user
          token, the person revoking the app. A comment <code>: closed token_expired</code> or{" "}
          <code>: closed token_revoked</code> comes first; reconnect with a new token and <code>Last-Event-ID</code>.
        </li>
        <li>
          <strong>Keep reading</strong>: a reader that falls too far behind (about 1 MiB unread, or nothing read for a
          minute) is disconnected after <code>: closed slow_reader</code>; reconnect with <code>Last-Event-ID</code> and
          nothing is missed.
        </li>
      </ul>

      <h2 id="sandbox">Events in the sandbox</h2>
      <p>
        Every app&apos;s sandbox has its own events, kept apart from live ones in both directions. A chat post or a poke
        in the sandbox&apos;s synthetic world, and the sandbox client&apos;s own <code>app.*</code> events, go only to the
        sandbox&apos;s webhook endpoints and to streams opened with a sandbox token (<code>sbx_…</code>); live events never
        reach them, and one app&apos;s sandbox never hears another&apos;s.
      </p>
      <ul>
        <li>
          <strong>Endpoints</strong>: switch the Webhooks tab to <strong>Sandbox</strong> (or add <code>--sandbox</code> to
          any <code>apps webhooks</code> command). Sandbox endpoints work like live ones: at most {MAX_WEBHOOKS_PER_APP}, their
          own <code>whsec_</code> secrets, the same signatures, retries, delivery log and test event.
        </li>
        <li>
          <strong>Who hears what</strong>: the rules above, with the sandbox&apos;s scopes (your app&apos;s current
          configuration, a pending change included) and no review; every synthetic person counts as having authorized the
          sandbox, so <code>notification.created</code> needs only <code>svc:notifications.read</code>.
        </li>
        <li>
          <strong>The stream</strong>: <code>GET /api/v1/events</code> with a sandbox token streams that sandbox&apos;s
          events only, with the same filters, resumption and limits.
        </li>
        <li>
          <strong>Trigger an event</strong>: <strong>Trigger event</strong> on the app&apos;s Sandbox tab, or{" "}
          <code>apps sandbox trigger CLIENT_ID EVENT_TYPE</code>, writes one event of any type but <code>ping</code> with
          data from the sandbox&apos;s world (a synthetic person posts, pokes, authorizes or revokes; the app is
          &ldquo;approved&rdquo;), delivered like any other sandbox event. It prints the event&apos;s id.
        </li>
      </ul>

      <h2 id="cli">From the operator CLI</h2>
      <p>
        Operators manage endpoints with <code>npm run platform -- …</code>; every command takes <code>--json</code>.
      </p>
      <CodeBlock
        title="apps webhooks"
        code={`apps webhooks add CLIENT_ID --url URL [--event TYPE]…     # prints the whsec_ secret, once
apps webhooks list CLIENT_ID
apps webhooks remove CLIENT_ID WEBHOOK_ID
apps webhooks disable CLIENT_ID WEBHOOK_ID
apps webhooks enable CLIENT_ID WEBHOOK_ID
apps webhooks rotate-secret CLIENT_ID WEBHOOK_ID          # new secret; the old one signs along for 24 h
apps webhooks test CLIENT_ID WEBHOOK_ID                   # a ping to one endpoint
apps webhooks deliveries CLIENT_ID [--webhook WEBHOOK_ID] [--status failed|delivered] [--limit N]
apps webhooks backlog CLIENT_ID                           # what waits now, and how long the oldest has waited
apps webhooks redeliver CLIENT_ID DELIVERY_ID
# any of them with --sandbox: the endpoints of the app's sandbox
apps sandbox trigger CLIENT_ID EVENT_TYPE                 # one sandbox event with synthetic data; prints {"event_id"}`}
      />
    </DocsPage>
  );
}
