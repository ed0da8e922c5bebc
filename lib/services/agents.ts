import { transactionWithChanges } from "../database/changes";
import { db, Prisma, type Tx } from "../database/client";
import { AppError } from "../errors";
import { agentDomain, domainCovers } from "../schemas/agents";
import { isAdminActor, type Actor } from "./actor";
import { pruneLogos, storeLogo, type CheckedLogo } from "./app-logos";
import { reinstateApp, suspendApp } from "./app-review";
import { recordAudit } from "./audit";
import { ensureSystemUser } from "./users";

/**
 * AI agents' clients in the database (issue 40): an agent is an Application of type `agent` whose
 * client ID is the https URL of its Client ID Metadata Document, owned by the platform's own account
 * and created at its first authorization (lib/oidc/agents.ts fetches and checks the document); and
 * the admins' rules for agents (AgentRule): a domain trusted, sent to review or blocked, or one
 * client URL blocked. Suspension and resumption are the apps' own (app-review.ts), so they hold
 * at once in every process like any app's; a block suspends the agents it covers, an unblock
 * resumes those it suspended.
 */

export type AgentPolicy = "trusted" | "review" | "blocked";

export interface AgentRow {
  id: number;
  clientId: string;
  name: string;
  status: "pending" | "approved" | "rejected" | "suspended";
  statusReason: string | null;
  redirectUris: string[];
  agentMetadata: unknown;
  agentMetadataExpiresAt: Date | null;
  /** The logo its metadata pointed to, copied to the platform's origin (AppLogo), or null. */
  logo: string | null;
}

const agentSelect = {
  id: true,
  clientId: true,
  name: true,
  status: true,
  statusReason: true,
  redirectUris: true,
  agentMetadata: true,
  agentMetadataExpiresAt: true,
  logo: true,
} as const;

export async function findAgentRow(clientId: string): Promise<AgentRow | null> {
  return db.application.findFirst({ where: { clientId, type: "agent" }, select: agentSelect });
}

/** The statusReason of an agent a block suspended (an unblock resumes exactly these). */
export const BLOCKED_REASON_PREFIX = "Blocked by the platform";

/** A new agent's row: owned by the platform's own account, no secret, no scopes of its own (the rules give them). */
function newAgentRow(ownerId: number, fields: { clientId: string; status: "approved" | "pending"; description: string }) {
  return { ...fields, type: "agent" as const, ownerId, scopes: [], postLogoutRedirectUris: [], lastSeenAt: new Date() };
}

/**
 * What an agent's metadata says of its logo, fetched (lib/oidc/agents.ts): the checked image, null for
 * none (no logo_uri, or one that could not be used), or "unchanged" (the same logo_uri as the stored
 * metadata: its copy is kept, not fetched again).
 */
export type AgentLogo = CheckedLogo | null | "unchanged";

/**
 * Keeps the agent's logo as its metadata now has it: the checked image stored under its content
 * hash (AppLogo, served from the platform's origin like an app's), the row naming it, any other
 * dropped. A new logo is a change a reviewer sees: the revision moves.
 */
async function keepAgentLogo(tx: Tx, row: AgentRow, logo: AgentLogo): Promise<AgentRow> {
  if (logo === "unchanged") return row;
  const file = logo?.file ?? null;
  if (logo) await storeLogo(tx, row.id, logo);
  await pruneLogos(tx, row.id, [file]);
  if (row.logo === file) return row;
  await tx.application.update({ where: { id: row.id }, data: { logo: file, revision: { increment: 1 } } });
  return { ...row, logo: file };
}

/**
 * Stores a checked metadata document: creates the agent at its first authorization (approved, or
 * pending when its domain requires review), or refreshes its name, redirect URIs and document.
 * Audited the first time ("agent.first_seen").
 */
export async function saveAgentDocument(input: {
  clientId: string;
  name: string;
  domain: string;
  redirectUris: string[];
  document: Record<string, unknown>;
  expiresAt: Date;
  policy: AgentPolicy | null;
  logo: AgentLogo;
}): Promise<AgentRow> {
  const owner = await ensureSystemUser();
  return transactionWithChanges(async (tx, announce) => {
    const existing = await tx.application.findUnique({ where: { clientId: input.clientId }, select: { id: true, type: true } });
    if (existing && existing.type !== "agent") throw new AppError("conflict", `${input.clientId} is a developer's app.`);
    const fields = {
      name: input.name,
      redirectUris: input.redirectUris,
      agentMetadata: input.document as Prisma.InputJsonValue,
      agentMetadataExpiresAt: input.expiresAt,
    };
    const saved = existing
      ? await tx.application.update({ where: { id: existing.id }, data: fields, select: agentSelect })
      : await tx.application.create({
          data: {
            ...fields,
            ...newAgentRow(owner.id, {
              clientId: input.clientId,
              status: input.policy === "review" ? "pending" : "approved",
              description: `An AI agent whose client metadata document is at ${input.clientId}.`,
            }),
          },
          select: agentSelect,
        });
    const row = await keepAgentLogo(tx, saved, input.logo);
    if (!existing) {
      await recordAudit(
        {
          actor: { kind: "system", name: "sign-in" },
          action: "agent.first_seen",
          targetType: "app",
          targetId: input.clientId,
          detail: { domain: input.domain, name: input.name, status: row.status },
        },
        tx,
      );
    }
    await announce({ kind: "app", clientId: input.clientId });
    return row;
  });
}

/**
 * Creates an agent from a dynamic registration (RFC 7591, lib/oidc/registration.ts): its checked
 * metadata is kept as registered (no expiry: nothing to fetch again). Audited ("agent.registered",
 * with the masked address it came from).
 */
export async function registerAgent(input: {
  clientId: string;
  name: string;
  redirectUris: string[];
  metadata: Record<string, unknown>;
  logo: CheckedLogo | null;
  address: string;
}): Promise<AgentRow> {
  const owner = await ensureSystemUser();
  return transactionWithChanges(async (tx, announce) => {
    const created = await tx.application.create({
      data: {
        name: input.name,
        redirectUris: input.redirectUris,
        agentMetadata: input.metadata as Prisma.InputJsonValue,
        ...newAgentRow(owner.id, {
          clientId: input.clientId,
          status: "approved",
          description: "An AI agent that registered itself (dynamic client registration); the platform has not verified who publishes it.",
        }),
      },
      select: agentSelect,
    });
    const row = await keepAgentLogo(tx, created, input.logo);
    await recordAudit(
      {
        actor: { kind: "system", name: "sign-in" },
        action: "agent.registered",
        targetType: "app",
        targetId: input.clientId,
        detail: { name: input.name, address: input.address },
      },
      tx,
    );
    await announce({ kind: "app", clientId: input.clientId });
    return row;
  });
}

export interface AgentRule {
  kind: "domain" | "url";
  value: string;
  policy: AgentPolicy;
  createdAt: Date;
}

export async function listAgentRules(): Promise<AgentRule[]> {
  return db.agentRule.findMany({ select: { kind: true, value: true, policy: true, createdAt: true }, orderBy: [{ kind: "asc" }, { value: "asc" }] });
}

/**
 * The policy for an agent at `clientId` on `host` under `rules`: its URL blocked, else the rule of
 * the most specific domain that covers the host (the domain itself or a parent), else null.
 */
export function agentPolicyOf(rules: readonly AgentRule[], clientId: string, host: string): AgentPolicy | null {
  if (rules.some((r) => r.kind === "url" && r.value === clientId)) return "blocked";
  let best: AgentRule | null = null;
  for (const rule of rules) {
    if (rule.kind !== "domain") continue;
    if (!domainCovers(rule.value, host)) continue;
    if (!best || rule.value.length > best.value.length) best = rule;
  }
  return best?.policy ?? null;
}

export interface AgentSummary {
  clientId: string;
  domain: string;
  name: string;
  status: AgentRow["status"];
  statusReason: string | null;
  /** The row's revision (a review decision names it, like an app's). */
  revision: number;
  policy: AgentPolicy | null;
  firstSeenAt: Date;
  lastSeenAt: Date | null;
  people: number;
  requests: number;
  errors: number;
  /** Of its requests, the MCP server's tool calls and resource reads. */
  mcpCalls: number;
}

/**
 * Every agent for the admin area and `platform agents list`: newest first, with the people who
 * allowed it (remembered consents) and its API requests and errors of the last 30 days.
 */
export async function listAgents(options: { search?: string; limit?: number } = {}): Promise<AgentSummary[]> {
  const search = options.search?.trim();
  const [rows, rules] = await Promise.all([
    db.application.findMany({
      where: { type: "agent", ...(search ? { OR: [{ clientId: { contains: search } }, { name: { contains: search, mode: "insensitive" } }] } : {}) },
      select: { clientId: true, name: true, status: true, statusReason: true, revision: true, createdAt: true, lastSeenAt: true },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: Math.min(Math.max(options.limit ?? 200, 1), 1000),
    }),
    listAgentRules(),
  ]);
  const ids = rows.map((r) => r.clientId);
  const [people, usage] = ids.length
    ? await Promise.all([
        db.consent.groupBy({ by: ["clientId"], where: { clientId: { in: ids } }, _count: { _all: true } }),
        db.$queryRaw<{ clientId: string; requests: bigint; errors: bigint; mcp: bigint }[]>`
          SELECT "clientId", count(*) AS requests, count(*) FILTER (WHERE status >= 400) AS errors, count(*) FILTER (WHERE method = 'MCP') AS mcp
            FROM "RequestLog" WHERE "clientId" = ANY(${ids}) AND at > now() - interval '30 days' GROUP BY "clientId"`,
      ])
    : [[], []];
  const peopleOf = new Map(people.map((p) => [p.clientId, p._count._all]));
  const usageOf = new Map(usage.map((u) => [u.clientId, u]));
  return rows.map((row) => {
    const domain = agentDomain(row.clientId);
    return {
      clientId: row.clientId,
      domain,
      name: row.name,
      status: row.status,
      statusReason: row.statusReason,
      revision: row.revision,
      policy: agentPolicyOf(rules, row.clientId, domain),
      firstSeenAt: row.createdAt,
      lastSeenAt: row.lastSeenAt,
      people: peopleOf.get(row.clientId) ?? 0,
      requests: Number(usageOf.get(row.clientId)?.requests ?? 0),
      errors: Number(usageOf.get(row.clientId)?.errors ?? 0),
      mcpCalls: Number(usageOf.get(row.clientId)?.mcp ?? 0),
    };
  });
}

export async function getAgent(clientId: string): Promise<AgentSummary> {
  const agent = (await listAgents({ search: clientId })).find((a) => a.clientId === clientId);
  if (!agent) throw new AppError("not_found", `No agent with client ID ${clientId}.`);
  return agent;
}

function requireAdmin(actor: Actor): void {
  if (!isAdminActor(actor)) throw new AppError("forbidden", "Only admins manage agents.");
}

/** A domain as rules hold it: a host name, lower case, no port, no trailing dot. */
function normalizeAgentDomain(input: string): string {
  const value = input.trim().toLowerCase().replace(/\.$/, "");
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(value)) {
    throw new AppError("invalid_request", `"${input}" is not a domain name (for example agents.example.com).`);
  }
  return value;
}

/** Agents a rule covers: one URL, or every agent on the domain and its subdomains. */
async function agentsCoveredBy(kind: "domain" | "url", value: string): Promise<{ clientId: string; status: string; statusReason: string | null }[]> {
  const rows = await db.application.findMany({
    where: { type: "agent", ...(kind === "url" ? { clientId: value } : {}) },
    select: { clientId: true, status: true, statusReason: true },
  });
  return kind === "url" ? rows : rows.filter((r) => domainCovers(value, agentDomain(r.clientId)));
}

/**
 * Sets (or, with `policy` null, removes) the admins' rule for a domain or a client URL. Blocking
 * suspends every agent it covers at once (their tokens end like a suspended app's); removing a
 * block resumes the agents that block had suspended, unless another rule still blocks them. Returns
 * the rule as stored (the domain normalized).
 */
export async function setAgentRule(
  kind: "domain" | "url",
  rawValue: string,
  policy: AgentPolicy | null,
  actor: Actor,
): Promise<{ kind: "domain" | "url"; value: string; policy: AgentPolicy | null }> {
  requireAdmin(actor);
  const value = kind === "domain" ? normalizeAgentDomain(rawValue) : rawValue.trim();
  if (kind === "url" && policy !== null && policy !== "blocked") throw new AppError("invalid_request", "A single agent URL can only be blocked; trust or review applies to a domain.");
  const before = await db.agentRule.findUnique({ where: { kind_value: { kind, value } } });
  await transactionWithChanges(async (tx, announce) => {
    if (policy === null) await tx.agentRule.deleteMany({ where: { kind, value } });
    else {
      await tx.agentRule.upsert({
        where: { kind_value: { kind, value } },
        create: { kind, value, policy, createdById: actor.kind === "user" ? actor.id : null },
        update: { policy, createdById: actor.kind === "user" ? actor.id : null },
      });
    }
    await recordAudit(
      {
        actor,
        action: policy === null ? `agent.${kind}.rule_removed` : `agent.${kind}.${policy === "blocked" ? "block" : policy === "trusted" ? "trust" : "review"}`,
        targetType: "setting",
        targetId: `agent-${kind}:${value}`,
        detail: { from: before?.policy ?? null, to: policy },
      },
      tx,
    );
    await announce({ kind: "agents" });
  });
  const covered = await agentsCoveredBy(kind, value);
  if (policy === "blocked") {
    for (const agent of covered) {
      if (agent.status === "suspended") continue;
      await suspendApp(agent.clientId, `${BLOCKED_REASON_PREFIX}: ${kind === "url" ? "this agent" : `the domain ${value}`}.`, actor);
    }
  } else if (before?.policy === "blocked") {
    const rules = await listAgentRules();
    for (const agent of covered) {
      if (agent.status !== "suspended" || !agent.statusReason?.startsWith(BLOCKED_REASON_PREFIX)) continue;
      if (agentPolicyOf(rules, agent.clientId, agentDomain(agent.clientId)) === "blocked") continue;
      await reinstateApp(agent.clientId, actor);
    }
  }
  return { kind, value, policy };
}

/** Records that an agent was used (authorization or token), at most once a minute per agent and process. */
const lastSeenWritten = new Map<string, number>();
export async function touchAgent(clientId: string): Promise<void> {
  const now = Date.now();
  if ((lastSeenWritten.get(clientId) ?? 0) > now - 60_000) return;
  if (lastSeenWritten.size > 10_000) lastSeenWritten.clear();
  lastSeenWritten.set(clientId, now);
  await db.application.updateMany({ where: { clientId, type: "agent" }, data: { lastSeenAt: new Date(now) } });
}
