import Link from "next/link";
import { Card } from "@/components/ui/card";
import { TimeAgo } from "@/components/ui/time-ago";
import { RouteName } from "@/components/usage/route-name";
import type { SandboxExercise } from "@/lib/schemas/usage";

/**
 * Beside the Review panel: how much the app's team exercised its sandbox before asking
 * for review — API calls and token requests of the last days, the endpoints called, the last
 * activity. An app never tried in its sandbox is worth a question before approval.
 */
export function SandboxExercisePanel({ clientId, exercise, now }: { clientId: string; exercise: SandboxExercise; now: Date }) {
  const stats = [
    { label: `API calls, last ${exercise.days} days`, value: exercise.calls.toLocaleString("en-US"), testId: "sandbox-calls" },
    { label: "Endpoints used", value: exercise.endpoints.length.toLocaleString("en-US"), testId: "sandbox-endpoint-count" },
    { label: "Errors (4xx + 5xx)", value: exercise.errors.toLocaleString("en-US"), testId: "sandbox-errors" },
    { label: "Token requests", value: exercise.tokenRequests.toLocaleString("en-US"), testId: "sandbox-token-requests" },
  ];
  return (
    <Card
      id="sandbox-exercise"
      title="Sandbox use"
      description={
        <>
          What the team tried in the app&apos;s sandbox (<code className="font-mono text-xs break-all">{exercise.sandboxClientId}</code>
          ), against synthetic people, from its usage figures.
        </>
      }
    >
      <div className="space-y-4" data-testid="sandbox-exercise">
        <p className="text-sm text-slate-700" data-testid="sandbox-last-activity">
          Last activity:{" "}
          {exercise.lastActivity ? (
            <span className="font-medium text-slate-900">
              <TimeAgo date={exercise.lastActivity} now={now} />
            </span>
          ) : (
            <span className="font-medium text-slate-900">never: the sandbox has not been used</span>
          )}
        </p>
        <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
          {stats.map((s) => (
            <div key={s.label} className="min-w-0 rounded-lg border border-slate-200 p-3">
              <dt className="text-xs text-slate-600">{s.label}</dt>
              <dd className="mt-1 text-lg font-semibold text-slate-900 tabular-nums" data-testid={s.testId}>
                {s.value}
              </dd>
            </div>
          ))}
        </dl>
        {exercise.endpoints.length ? (
          <div role="region" aria-label="Sandbox endpoints used" tabIndex={0} className="max-w-full overflow-x-auto">
            <table className="w-full text-left text-sm" data-testid="sandbox-endpoints">
              <caption className="sr-only">Endpoints the sandbox called in the last {exercise.days} days, most called first</caption>
              <thead className="text-xs font-semibold tracking-wide text-slate-600 uppercase">
                <tr>
                  <th scope="col" className="py-2 pr-3">Endpoint</th>
                  <th scope="col" className="py-2 pr-3 text-right">Calls</th>
                  <th scope="col" className="py-2 text-right">Errors</th>
                </tr>
              </thead>
              <tbody>
                {exercise.endpoints.map((e) => (
                  <tr key={e.route} className="border-t border-slate-100">
                    <td className="py-2 pr-3 font-mono text-xs text-slate-900">
                      <RouteName route={e.route} />
                    </td>
                    <td className="py-2 pr-3 text-right tabular-nums">{e.calls.toLocaleString("en-US")}</td>
                    <td className="py-2 text-right tabular-nums">{e.errors.toLocaleString("en-US")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p className="text-sm text-slate-600">No API calls in the sandbox in the last {exercise.days} days.</p>
        )}
        <Link href={`/apps/${clientId}/usage?mode=sandbox`} prefetch={false} className="inline-block text-sm font-medium text-brand-700 hover:underline">
          The sandbox&apos;s usage and request log
        </Link>
      </div>
    </Card>
  );
}
