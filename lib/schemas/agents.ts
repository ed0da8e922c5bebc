import { z } from "zod";

/** What admins decide for AI agents' clients (issue 40; lib/services/agents.ts applies it). */
export const AGENT_POLICIES = ["trusted", "review", "blocked"] as const;

/**
 * An admin's rule from the Agents page: a domain (its agents and its subdomains') trusted, sent to
 * review or blocked, or one agent's client URL blocked; `policy` null removes the rule.
 */
export const agentRuleSchema = z
  .object({
    kind: z.enum(["domain", "url"]),
    value: z.string().trim().min(1, "Give a domain or an agent's client URL").max(2048),
    policy: z.enum(AGENT_POLICIES).nullable(),
  })
  .refine((rule) => rule.kind === "domain" || rule.policy === null || rule.policy === "blocked", {
    message: "A single agent can only be blocked; trust and review apply to a whole domain",
    path: ["policy"],
  });

/** The host of an agent's client ID: what the consent page shows as verified and domain rules match ("" if not a URL). */
export function agentDomain(clientId: string): string {
  return URL.parse(clientId)?.hostname ?? "";
}

/** Whether a domain rule for `domain` covers `host`: the domain itself or one of its subdomains. */
export function domainCovers(domain: string, host: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}
