import type { AgentSummary } from "../services/agents";
import { parseWith, services, type Command } from "./command";

/**
 * `agents …`: AI agents' clients (issue 40), which no one registers: list and show them, suspend and
 * resume one, block a client URL or a whole domain, trust a domain (its agents may ask for every
 * scope a person can grant) or send its new agents to review. The services are the admin area's
 * (lib/services/agents.ts, app-review.ts), with the operator as the actor.
 */

/** One agent's summary (the services load when a command runs, as lib/cli/command.ts says). */
async function agentNamed(clientId: string): Promise<AgentSummary> {
  const { getAgent } = await import("../services/agents");
  return getAgent(clientId);
}

const unix = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);

function agentJson(agent: AgentSummary) {
  return {
    client_id: agent.clientId,
    domain: agent.domain,
    name: agent.name,
    status: agent.status,
    status_reason: agent.statusReason,
    policy: agent.policy ?? "default",
    people: agent.people,
    requests: agent.requests,
    errors: agent.errors,
    mcp_calls: agent.mcpCalls,
    first_seen_at: unix(agent.firstSeenAt),
    last_seen_at: unix(agent.lastSeenAt),
  };
}

function agentLine(agent: AgentSummary): string {
  return `${agent.clientId}  ${agent.status}  domain=${agent.domain}  policy=${agent.policy ?? "default"}  people=${agent.people}  last_seen=${agent.lastSeenAt?.toISOString() ?? "never"}`;
}

export const agentsList: Command = {
  usage: "agents list [--json]",
  summary: "List AI agents' clients, newest first, with their domain, status, people connected and last use",
  options: {},
  positionals: [],
  async run() {
    const { agents } = await services();
    const all = await agents.listAgents({ limit: 1000 });
    return {
      json: all.map((a) => ({ client_id: a.clientId, domain: a.domain, status: a.status, people: a.people, last_seen_at: unix(a.lastSeenAt) })),
      text: all.length ? all.map(agentLine).join("\n") : "No agents yet: one appears at its first sign-in.",
    };
  },
};

export const agentsShow: Command = {
  usage: "agents show CLIENT_ID [--json]",
  summary: "One agent: its domain, status, the rule that applies, people connected, requests, errors and MCP calls (30 days)",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const { schemas } = await services();
    const clientId = parseWith(schemas.agentClientIdSchema, args[0], { "": "CLIENT_ID" });
    const agent = await agentNamed(clientId);
    return {
      json: agentJson(agent),
      text: [
        agentLine(agent),
        `name:     ${agent.name} (as its metadata document says)`,
        `requests: ${agent.requests} (${agent.errors} errors, ${agent.mcpCalls} over MCP) in 30 days`,
        ...(agent.statusReason ? [`reason:   ${agent.statusReason}`] : []),
      ].join("\n"),
    };
  },
};

export const agentsSuspend: Command = {
  usage: "agents suspend CLIENT_ID [--reason R] [--json]",
  summary: "Suspend one agent: it cannot sign anyone in and every token it holds stops working at once",
  options: { reason: { type: "string" } },
  positionals: ["CLIENT_ID"],
  async run({ values, args }) {
    const { apps, schemas, actor } = await services();
    const clientId = parseWith(schemas.agentClientIdSchema, args[0], { "": "CLIENT_ID" });
    const { reason } = parseWith(schemas.suspendAppSchema, { reason: values.reason ?? "Suspended by the platform operator." }, { reason: "--reason" });
    await apps.suspendApp(clientId, reason, actor);
    const agent = await agentNamed(clientId);
    return { json: agentJson(agent), text: `Suspended: ${agentLine(agent)}` };
  },
};

export const agentsResume: Command = {
  usage: "agents resume CLIENT_ID [--json]",
  summary: "Resume a suspended agent (tokens issued before the suspension stay void)",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const { apps, schemas, actor } = await services();
    const clientId = parseWith(schemas.agentClientIdSchema, args[0], { "": "CLIENT_ID" });
    await apps.reinstateApp(clientId, actor);
    const agent = await agentNamed(clientId);
    return { json: agentJson(agent), text: `Resumed: ${agentLine(agent)}` };
  },
};

/** A rule's target: an agent's client URL, or a domain. */
function ruleTarget(value: string | undefined): { kind: "domain" | "url"; value: string } {
  const given = (value ?? "").trim();
  // An agent's own client ID (its document's URL, or a registered agt_…) names that agent; anything else is a domain.
  return /^(https?:\/\/|agt_)/i.test(given) ? { kind: "url", value: given } : { kind: "domain", value: given };
}

function ruleCommand(verb: string, summary: string, policy: "trusted" | "review" | "blocked" | null, target: "CLIENT_ID|DOMAIN" | "DOMAIN"): Command {
  return {
    usage: `agents ${verb} ${target} [--json]`,
    summary,
    options: {},
    positionals: [target],
    async run({ args }) {
      const { agents, actor } = await services();
      const { kind, value } = target === "DOMAIN" ? { kind: "domain" as const, value: args[0] ?? "" } : ruleTarget(args[0]);
      const rule = await agents.setAgentRule(kind, value, policy, actor);
      return {
        json: { kind, value: rule.value, policy: rule.policy ?? "default" },
        text: `${kind === "url" ? "Agent" : "Domain"} ${rule.value}: ${rule.policy ?? "default (read scopes only, no review)"}`,
      };
    },
  };
}

export const agentsBlock = ruleCommand(
  "block",
  "Block one agent (its client ID) or a whole domain (and its subdomains): its agents cannot sign anyone in and their tokens stop working at once",
  "blocked",
  "CLIENT_ID|DOMAIN",
);
export const agentsUnblock = ruleCommand("unblock", "Lift a block; the agents it had suspended are resumed", null, "CLIENT_ID|DOMAIN");
export const agentsTrust = ruleCommand(
  "trust",
  "Trust a domain: its agents may ask for every scope a person can grant (unreviewed agents: read scopes only)",
  "trusted",
  "DOMAIN",
);
export const agentsUntrust = ruleCommand("untrust", "Remove a domain's trust or review rule: its agents are back to read scopes only", null, "DOMAIN");
export const agentsReview = ruleCommand(
  "review",
  "Require review for a domain: its new agents wait for an admin's approval (apps approve CLIENT_ID) before they sign anyone in",
  "review",
  "DOMAIN",
);
