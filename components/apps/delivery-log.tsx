import { Badge } from "@/components/ui/badge";
import { TimeAgo } from "@/components/ui/time-ago";
import type { DeliveryView } from "@/lib/schemas/webhooks";
import { RedeliverButton } from "./redeliver-button";

/** What an attempt came to: the status code, or the error (timeout, refused, tls, dns, network…). */
function Outcome({ d }: { d: DeliveryView }) {
  if (d.state === "pending") return <Badge tone="sky">Pending</Badge>;
  const what = d.status_code !== null ? String(d.status_code) : (d.error ?? "failed");
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5">
      <Badge tone={d.ok ? "green" : "red"} dot>
        {d.ok ? "Delivered" : "Failed"}
      </Badge>
      <code className="font-mono text-xs text-slate-800" data-testid="delivery-result">
        {what}
      </code>
      {d.status_code !== null && d.error ? <code className="font-mono text-xs text-slate-600">{d.error}</code> : null}
    </span>
  );
}

const CELL = "lg:px-4 lg:py-3";
/** The phone card's label for a value (the table's header says it from lg). */
const Label = ({ children }: { children: string }) => <span className="text-slate-600 lg:hidden">{children} </span>;

/**
 * The delivery log of the Webhooks tab, newest first: every attempt. Below lg each
 * attempt is a card (as in the audit log), the event id and the endpoint at full width; from lg a
 * table. The response's first 1 KiB opens in a <details> (no JavaScript needed).
 */
export function DeliveryLog({
  clientId,
  deliveries,
  urls,
  now,
  canRedeliver,
  sandbox = false,
}: {
  clientId: string;
  /** The log of the app's sandbox endpoints. */
  sandbox?: boolean;
  deliveries: DeliveryView[];
  /** Endpoint id → URL, to say where each attempt went. */
  urls: Record<string, string>;
  now: Date;
  canRedeliver: boolean;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="block w-full text-left text-sm lg:table lg:min-w-[880px]" data-testid="delivery-log">
        <caption className="sr-only">Webhook deliveries, newest first</caption>
        <thead className="hidden bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase lg:table-header-group">
          <tr>
            <th scope="col" className="px-4 py-3">Event</th>
            <th scope="col" className="px-4 py-3">Attempt</th>
            <th scope="col" className="px-4 py-3">Result</th>
            <th scope="col" className="px-4 py-3 text-right">Latency</th>
            <th scope="col" className="px-4 py-3">Time</th>
            <th scope="col" className="px-4 py-3">Next retry</th>
            <th scope="col" className="px-4 py-3">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="block divide-y divide-slate-100 lg:table-row-group">
          {deliveries.map((d) => (
            <tr
              key={d.id}
              className="flex flex-wrap items-center gap-x-4 gap-y-2 p-4 align-top lg:table-row lg:p-0"
              data-testid="delivery-row"
              data-delivery-id={d.id}
              data-state={d.state}
            >
              <td className={`min-w-0 basis-full lg:max-w-80 ${CELL}`}>
                <code className="font-mono text-sm font-medium text-slate-900">{d.event_type}</code>
                <span className="block font-mono text-xs break-all text-slate-600">{d.event_id}</span>
                <span className="block text-xs break-all text-slate-600">
                  to <span className="font-mono">{urls[d.webhook_id] ?? d.webhook_id}</span>
                </span>
                <details className="mt-1 text-xs">
                  <summary className="inline-flex min-h-6 cursor-pointer items-center text-brand-700 hover:underline">Response</summary>
                  {d.response ? (
                    <pre className="mt-1 max-h-48 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs break-all whitespace-pre-wrap text-slate-800" data-testid="delivery-response">
                      {d.response}
                    </pre>
                  ) : (
                    <p className="mt-1 text-slate-600">{d.state === "pending" ? "Not sent yet." : "No response body."}</p>
                  )}
                  <p className="mt-1 text-slate-600">
                    Delivery <code className="font-mono break-all">{d.id}</code>; the first 1 KiB of the response is kept, for 7 days.
                  </p>
                </details>
              </td>
              <td className={`whitespace-nowrap text-slate-800 ${CELL}`}>
                <Label>Attempt</Label>
                <span className="tabular-nums" data-testid="delivery-attempt">
                  {d.attempt}
                </span>
                {d.redelivery ? (
                  <span className="ml-2">
                    <Badge tone="brand">redelivery</Badge>
                  </span>
                ) : null}
              </td>
              <td className={`whitespace-nowrap ${CELL}`}>
                <Outcome d={d} />
              </td>
              <td className={`whitespace-nowrap text-slate-800 tabular-nums lg:text-right ${CELL}`}>
                <Label>Latency</Label>
                {d.latency_ms === null ? "–" : `${d.latency_ms} ms`}
              </td>
              <td className={`whitespace-nowrap text-slate-800 ${CELL}`}>
                <Label>{d.state === "pending" ? "Due" : "Sent"}</Label>
                <TimeAgo date={new Date(d.created_at * 1000)} now={now} />
              </td>
              <td className={`whitespace-nowrap text-slate-800 ${CELL}`}>
                {d.next_attempt_at !== null ? (
                  <>
                    <Label>Next retry</Label>
                    <TimeAgo date={new Date(d.next_attempt_at * 1000)} now={now} />
                  </>
                ) : d.state === "failed" ? (
                  <span className="text-slate-600">
                    <Label>Next retry</Label>none
                  </span>
                ) : (
                  <span className="text-slate-500 max-lg:hidden">–</span>
                )}
              </td>
              <td className={`whitespace-nowrap ${CELL} lg:text-right`}>
                {canRedeliver && d.state !== "pending" ? <RedeliverButton clientId={clientId} deliveryId={d.id} eventType={d.event_type} sandbox={sandbox} /> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
