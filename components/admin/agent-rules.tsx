"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import { setAgentRuleAction } from "@/lib/actions/admin";
import { Button } from "@/components/ui/button";
import { inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import type { AGENT_POLICIES } from "@/lib/schemas/agents";

type Policy = (typeof AGENT_POLICIES)[number];

const POLICY_LABELS: Record<Policy, string> = {
  trusted: "Trust: every scope a person can grant",
  review: "Require review before first sign-in",
  blocked: "Block: no sign-in, tokens end at once",
};

function useRule() {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  function apply(kind: "domain" | "url", value: string, policy: Policy | null, done: string, after?: () => void) {
    startTransition(async () => {
      const result = await setAgentRuleAction(kind, value, policy);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      toast.success(done);
      after?.();
      router.refresh();
    });
  }
  return { pending, apply };
}

/** The form that adds (or changes) a domain's rule. */
export function AgentDomainRuleForm() {
  const { pending, apply } = useRule();
  const [domain, setDomain] = useState("");
  const [policy, setPolicy] = useState<Policy>("trusted");
  return (
    <form
      className="flex flex-col gap-3 md:flex-row md:items-end"
      onSubmit={(event) => {
        event.preventDefault();
        apply("domain", domain, policy, `${domain}: ${POLICY_LABELS[policy].split(":")[0]}`, () => setDomain(""));
      }}
    >
      <div className="min-w-0 flex-1">
        <label htmlFor="agent-domain" className="block text-sm font-medium text-slate-800">
          Domain
        </label>
        <input
          id="agent-domain"
          value={domain}
          onChange={(event) => setDomain(event.target.value)}
          placeholder="agents.example.com"
          required
          className={`${inputClasses} mt-1`}
        />
      </div>
      <div className="min-w-0 md:w-80">
        <label htmlFor="agent-policy" className="block text-sm font-medium text-slate-800">
          Rule
        </label>
        <select id="agent-policy" value={policy} onChange={(event) => setPolicy(event.target.value as Policy)} className={`${inputClasses} mt-1`}>
          {(Object.keys(POLICY_LABELS) as Policy[]).map((p) => (
            <option key={p} value={p}>
              {POLICY_LABELS[p]}
            </option>
          ))}
        </select>
      </div>
      <Button type="submit" loading={pending}>
        <Icon name="shield" /> Set rule
      </Button>
    </form>
  );
}

/** Removes a rule (a block lifted resumes the agents it had suspended). */
export function RemoveAgentRuleButton({ kind, value }: { kind: "domain" | "url"; value: string }) {
  const { pending, apply } = useRule();
  return (
    <Button size="sm" variant="secondary" loading={pending} onClick={() => apply(kind, value, null, `Rule for ${value} removed`)} aria-label={`Remove the rule for ${value}`}>
      <Icon name="x" /> Remove
    </Button>
  );
}

/** Blocks one agent's client URL (others on its domain keep working). */
export function BlockAgentButton({ clientId, name }: { clientId: string; name: string }) {
  const { pending, apply } = useRule();
  return (
    <Button size="sm" variant="danger-outline" loading={pending} onClick={() => apply("url", clientId, "blocked", `Blocked ${name}`)} aria-label={`Block ${name}`}>
      <Icon name="ban" /> Block
    </Button>
  );
}
