import type { Metadata } from "next";
import { z } from "zod";
import { AdminSearch } from "@/components/admin/admin-search";
import { AgentDomainRuleForm, BlockAgentButton, RemoveAgentRuleButton } from "@/components/admin/agent-rules";
import { AppReviewActions } from "@/components/admin/app-review-actions";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { TimeAgo } from "@/components/ui/time-ago";
import { requireAdmin } from "@/lib/portal/session";
import { listAgentRules, listAgents, type AgentPolicy, type AgentSummary } from "@/lib/services/agents";

export const metadata: Metadata = { title: "Agents" };

const querySchema = z.object({ q: z.string().trim().max(200).optional().catch(undefined) });

const STATUS_TONE: Record<AgentSummary["status"], "green" | "amber" | "red" | "neutral"> = {
  approved: "green",
  pending: "amber",
  suspended: "red",
  rejected: "neutral",
};
const STATUS_LABEL: Record<AgentSummary["status"], string> = {
  approved: "Active",
  pending: "Waiting for review",
  suspended: "Suspended",
  rejected: "Rejected",
};
const POLICY_LABEL: Record<AgentPolicy, string> = { trusted: "Trusted domain", review: "Domain under review", blocked: "Blocked" };

/**
 * AI agents' clients (issue 40): no one registers them; each appears at its first sign-in with the
 * URL of its metadata document as its client ID. What an agent may ask for follows the rules set
 * here: unreviewed agents read only, a trusted domain's agents ask for every scope, a domain under
 * review waits for approval, and a blocked domain or URL cannot sign anyone in. Suspend, approve
 * and reinstate are the review queue's own actions (one gate, one audit trail).
 */
export default async function AdminAgentsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireAdmin();
  const now = new Date();
  const query = querySchema.parse(await searchParams);
  const [agents, rules] = await Promise.all([listAgents({ search: query.q || undefined, limit: 200 }), listAgentRules()]);
  return (
    <div className="space-y-8">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight">Agents</h1>
          <p className="mt-1 max-w-3xl text-sm text-slate-600">
            AI agents (MCP clients such as assistants and coding tools) sign people in without registering: each is known by the URL of its
            client metadata document. Unless its domain is trusted, an agent may ask only for read scopes. Suspending or blocking one ends its
            tokens at once.
          </p>
        </div>
        <AdminSearch action="/admin/agents" id="agent-search" label="Search agents" placeholder="Client URL or name" value={query.q} />
      </div>

      {agents.length === 0 ? (
        <EmptyState
          icon="globe"
          title={query.q ? "No agents found" : "No agents yet"}
          description={query.q ? `No agent matches “${query.q}”.` : "An agent appears here the first time someone signs in to it."}
        />
      ) : (
        <div className="overflow-hidden rounded-xl border border-slate-200 bg-white shadow-xs">
          <table className="block w-full text-left text-sm lg:table lg:table-fixed">
            <caption className="sr-only">Agents</caption>
            <thead className="hidden bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase lg:table-header-group">
              <tr>
                <th scope="col" className="px-5 py-3">Agent</th>
                <th scope="col" className="w-44 px-5 py-3">Status</th>
                <th scope="col" className="w-40 px-5 py-3">Seen</th>
                <th scope="col" className="w-36 px-5 py-3">Use (30 days)</th>
                <th scope="col" className="w-56 px-5 py-3 text-right">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="block divide-y divide-slate-100 lg:table-row-group">
              {agents.map((agent) => (
                <tr key={agent.clientId} className="flex flex-col gap-3 p-4 lg:table-row lg:p-0" data-client-id={agent.clientId}>
                  <td className="min-w-0 lg:px-5 lg:py-3">
                    <p className="font-medium break-words text-slate-900">
                      {agent.name} <span className="font-normal text-slate-600">(its own claim)</span>
                    </p>
                    <p className="mt-0.5 font-mono text-xs break-all text-slate-600">{agent.clientId}</p>
                    <p className="mt-0.5 text-xs text-slate-600">
                      {agent.domain ? (
                        <>
                          Domain <span className="font-medium text-slate-800">{agent.domain}</span>
                        </>
                      ) : (
                        "Registered itself: no verified domain"
                      )}
                    </p>
                    {/* In the wide column: a reason may carry a long URL (the status column is narrow). */}
                    {agent.statusReason ? <p className="mt-1 text-xs wrap-anywhere text-slate-700">Reason: {agent.statusReason}</p> : null}
                  </td>
                  <td className="lg:px-5 lg:py-3">
                    <div className="flex flex-wrap gap-1.5">
                      <Badge tone={STATUS_TONE[agent.status]} dot>
                        {STATUS_LABEL[agent.status]}
                      </Badge>
                      {agent.policy ? <Badge tone={agent.policy === "trusted" ? "brand" : "neutral"}>{POLICY_LABEL[agent.policy]}</Badge> : <Badge>Read scopes only</Badge>}
                    </div>
                  </td>
                  <td className="text-xs text-slate-700 lg:px-5 lg:py-3">
                    <p>
                      First <TimeAgo date={agent.firstSeenAt} now={now} />
                    </p>
                    <p>{agent.lastSeenAt ? <>Last <TimeAgo date={agent.lastSeenAt} now={now} /></> : "Not used yet"}</p>
                  </td>
                  <td className="text-xs text-slate-700 lg:px-5 lg:py-3">
                    <p>
                      {agent.people} {agent.people === 1 ? "person" : "people"} connected
                    </p>
                    <p>
                      {agent.requests.toLocaleString("en")} {agent.requests === 1 ? "request" : "requests"}, {agent.errors.toLocaleString("en")}{" "}
                      {agent.errors === 1 ? "error" : "errors"}
                    </p>
                    {agent.mcpCalls ? (
                      <p>
                        {agent.mcpCalls.toLocaleString("en")} of them over MCP
                      </p>
                    ) : null}
                  </td>
                  <td className="lg:px-5 lg:py-3">
                    <div className="flex flex-wrap gap-2 lg:justify-end">
                      <AppReviewActions clientId={agent.clientId} name={agent.name} status={agent.status} revision={agent.revision} />
                      {agent.policy !== "blocked" ? <BlockAgentButton clientId={agent.clientId} name={agent.name} /> : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <Card title="Rules" description="A domain's rule covers its subdomains; the most specific domain wins. A blocked URL stops one agent only.">
        <div className="space-y-6">
          {rules.length === 0 ? (
            <p className="text-sm text-slate-600">No rules: every agent may ask for read scopes only, and none waits for review.</p>
          ) : (
            <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200" aria-label="Agent rules">
              {rules.map((rule) => (
                <li key={`${rule.kind}:${rule.value}`} className="flex flex-col gap-2 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
                  <div className="min-w-0">
                    <p className="font-mono text-sm break-all text-slate-900">{rule.value}</p>
                    <p className="text-xs text-slate-600">
                      {rule.kind === "url" ? "One agent" : "Domain"} · {POLICY_LABEL[rule.policy]} · set <TimeAgo date={rule.createdAt} now={now} />
                    </p>
                  </div>
                  <RemoveAgentRuleButton kind={rule.kind} value={rule.value} />
                </li>
              ))}
            </ul>
          )}
          <AgentDomainRuleForm />
        </div>
      </Card>
    </div>
  );
}
