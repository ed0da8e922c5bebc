import { db } from "../database/client";
import { env } from "../env";
import { isAdminActor, type Actor } from "./actor";
import { hasSecondFactor } from "./second-factors";

/**
 * REQUIRE_MFA: who must have a second factor before doing what.
 * - `admins` (the default wherever DATABASE_URL is set): admins, before any admin page or action;
 * - `developers`: also owners and team admins of apps, before managing apps or their secrets;
 * - `everyone`: every person, before admin pages and actions and before managing apps;
 * - `off` (the default on the embedded demo database, so the demo accounts sign in as the README shows).
 * Checked on the server (lib/portal/session.ts): pages redirect to Account security, actions refuse.
 */
export type MfaContext = "admin" | "apps";

export function requireMfaLevel(): "admins" | "developers" | "everyone" | "off" {
  return env().REQUIRE_MFA ?? "off";
}

/** Whether `userId` owns an app or is a team admin of one (REQUIRE_MFA=developers). */
async function managesApps(userId: number): Promise<boolean> {
  const [owned, admin] = await Promise.all([
    db.application.count({ where: { ownerId: userId }, take: 1 }),
    db.appMember.count({ where: { userId, role: "admin" }, take: 1 }),
  ]);
  return owned + admin > 0;
}

/** Whether the policy asks this person for a second factor here and they have none yet. */
export async function isSecondFactorMissing(actor: Actor, context: MfaContext): Promise<boolean> {
  const level = requireMfaLevel();
  if (level === "off" || actor.kind !== "user") return false;
  let required: boolean;
  if (level === "everyone") required = true;
  else if (isAdminActor(actor)) required = true;
  else required = level === "developers" && context === "apps" && (await managesApps(actor.id));
  return required && !(await hasSecondFactor(actor.id));
}

export const SECOND_FACTOR_REQUIRED_MESSAGE = "Your account needs a second factor for this: set one up on Account security first.";
