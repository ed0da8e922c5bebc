"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runGuardedAction } from "@/lib/actions/gate";
import type { ActionResult } from "@/lib/actions/result";
import { getCurrentSessionUid } from "@/lib/portal/session";
import { signOutSessions } from "@/lib/services/sign-in-sessions";

/**
 * Account security's "Where you're signed in": the person ends their own sign-in
 * sessions. The session is checked on the server; the service only touches the actor's sessions
 * and audits what it ended. The asking browser's own session is never ended here (its row has
 * no "Sign out"; the account menu's Sign out is for that).
 */
const sessionIdSchema = z.string().regex(/^[A-Za-z0-9_-]{16}$/, "Not a session.");

export async function signOutSessionAction(sessionId: unknown): Promise<ActionResult<{ ended: number }>> {
  return runGuardedAction("account.sessions.sign_out", "account", async (actor) => {
    const result = await signOutSessions(actor, { session: sessionIdSchema.parse(sessionId) }, actor, await getCurrentSessionUid());
    revalidatePath("/account/security");
    return result;
  });
}

export async function signOutOtherSessionsAction(): Promise<ActionResult<{ ended: number }>> {
  return runGuardedAction("account.sessions.sign_out_others", "account", async (actor) => {
    const current = await getCurrentSessionUid();
    const result = await signOutSessions(actor, { allExcept: current }, actor, current);
    revalidatePath("/account/security");
    return result;
  });
}
