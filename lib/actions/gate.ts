import { runAction, type ActionResult } from "@/lib/actions/result";
import { AppError } from "@/lib/errors";
import { requireUserActor } from "@/lib/portal/session";
import { isAdminActor, type Actor } from "@/lib/services/actor";
import { recordAudit } from "@/lib/services/audit";
import { isSecondFactorMissing, SECOND_FACTOR_REQUIRED_MESSAGE, type MfaContext } from "@/lib/services/mfa-policy";

/**
 * The one gate of every server action (STYLE.md, "Surfaces share the rules"): the session, the
 * platform role where the action needs one, and the second-factor policy (REQUIRE_MFA,
 * lib/services/mfa-policy.ts), all checked before the action's body runs. Who may do what to an
 * app is then `capabilities(app, actor)`, read by the service the body calls. An action names
 * what it changes, never which guard to use, so a new action cannot pick a weaker one;
 * eslint.config.mjs ("actionGate") refuses an exported action that does not go through here.
 */
export type PersonActor = Extract<Actor, { kind: "user" }>;

/** What an action changes, which decides what the gate asks of the person first. */
export type ActionKind =
  /** An app: its settings, secrets, team, transfer, webhooks or sandbox (REQUIRE_MFA's "apps" rule). */
  | "app"
  /**
   * The signed-in person's own account: sessions, connected apps, second factors. Never asks for a
   * second factor: this is where one is set up, and where a person who lost theirs protects the
   * account. The services touch only the actor's own account (adding a factor asks for a proof).
   */
  | "account"
  /**
   * A person's account named by handle: the actor's own ("account"), or an admin's view of
   * someone else's, which is an admin action and meets the admins' rule.
   */
  | { accountOf: unknown }
  /** The admin area: the platform admin role, then the admins' rule; refusals are audited. */
  | { admin: string; target: () => GateTarget };

/** What an admin action acts on, as its audit row names it: an app, a person, or a platform setting (an agents' rule). */
type GateTarget = { type: "app" | "user" | "setting"; id: string };

/**
 * Runs `body` as the signed-in person once the gate lets them through, and turns what it throws
 * into an `ActionResult` (lib/actions/result.ts).
 */
export async function runGuardedAction<T>(name: string, kind: ActionKind, body: (actor: PersonActor) => Promise<T>): Promise<ActionResult<T>> {
  return runAction(name, async () => body(await passGate(name, kind)));
}

async function passGate(name: string, kind: ActionKind): Promise<PersonActor> {
  const actor = await requireUserActor();
  if (kind === "account") return actor;
  if (typeof kind === "object" && "accountOf" in kind) {
    if (kind.accountOf === actor.handle) return actor;
    await requireSecondFactor(actor, "admin", name, { type: "user", id: typeof kind.accountOf === "string" ? kind.accountOf.slice(0, 64) : "" });
    return actor;
  }
  if (kind === "app") {
    await requireSecondFactor(actor, "apps", name, { type: "user", id: actor.handle });
    return actor;
  }
  // Parsed inside the gate: a malformed target is the action's invalid_request, like any input.
  const target = kind.target();
  if (!isAdminActor(actor)) {
    await recordAudit({ actor, action: kind.admin, targetType: target.type, targetId: target.id, outcome: "denied" });
    throw new AppError("forbidden", "Only an admin can do that.");
  }
  await requireSecondFactor(actor, "admin", kind.admin, target);
  return actor;
}

async function requireSecondFactor(actor: PersonActor, context: MfaContext, action: string, target: GateTarget): Promise<void> {
  if (!(await isSecondFactorMissing(actor, context))) return;
  // A refusal here means the UI was bypassed (pages send such a person to Account security first).
  await recordAudit({ actor, action, targetType: target.type, targetId: target.id, outcome: "denied", detail: { reason: "second_factor_required" } });
  throw new AppError("forbidden", SECOND_FACTOR_REQUIRED_MESSAGE);
}
