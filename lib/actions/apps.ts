"use server";

import { revalidatePath } from "next/cache";
import { runGuardedAction } from "@/lib/actions/gate";
import type { ActionResult } from "@/lib/actions/result";
import { appKeysInputSchema, clientIdSchema, createAppSchema, secretIdSchema, updateAppSchema, type RevealedSecret } from "@/lib/schemas/apps";
import { clearAppKeys, setAppKeys } from "@/lib/services/app-keys";
import { addSecret, retireSecret, rollSecret } from "@/lib/services/app-secrets";
import { resubmitApp } from "@/lib/services/app-review";
import { createApp, deleteApp, updateApp } from "@/lib/services/apps";

/**
 * Registers an app for the signed-in developer; the form's schema is re-parsed here (STYLE: Validation).
 * Its sandbox's credentials come back once: an API client's sandbox secret exists only in
 * this response (the database keeps its hash).
 */
export async function createAppAction(
  input: unknown,
): Promise<ActionResult<{ clientId: string; sandbox: { clientId: string; clientSecret?: string } }>> {
  return runGuardedAction("apps.create", "app", async (actor) => {
    const parsed = createAppSchema.parse(input);
    const app = await createApp(parsed, { id: actor.id }, actor);
    revalidatePath("/apps");
    return { clientId: app.clientId, sandbox: app.sandbox };
  });
}

/**
 * Owner actions on one app. Who may do what is decided by the services (owner or admin; only the
 * owner sees or changes a secret), after the session is checked here. The services announce every
 * change to every process (lib/database/changes.ts), so nothing here clears a cache.
 */

/**
 * `sentForReview`: the save left changes waiting for an admin (an approved app's widening change),
 * so the form says "Sent for review" rather than "Changes saved".
 */
export async function updateAppAction(clientId: unknown, input: unknown): Promise<ActionResult<{ clientId: string; sentForReview: boolean }>> {
  return runGuardedAction("apps.update", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const app = await updateApp(id, updateAppSchema.parse(input), actor);
    revalidatePath(`/apps/${id}`);
    revalidatePath("/apps");
    revalidatePath("/admin", "layout");
    return { clientId: app.clientId, sentForReview: app.pendingChange !== null };
  });
}

/** "Save and resubmit" of a rejected app: saves the edit and puts the app back in the review queue. */
export async function resubmitAppAction(clientId: unknown, input: unknown): Promise<ActionResult<{ clientId: string }>> {
  return runGuardedAction("apps.resubmit", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const app = await resubmitApp(id, updateAppSchema.parse(input), actor);
    revalidatePath(`/apps/${id}`);
    revalidatePath("/apps");
    revalidatePath("/admin", "layout");
    return { clientId: app.clientId };
  });
}

/** Deleting revokes every grant and token of the app (lib/services/apps.ts deleteApp). */
export async function deleteAppAction(clientId: unknown): Promise<ActionResult<null>> {
  return runGuardedAction("apps.delete", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    await deleteApp(id, actor);
    revalidatePath("/apps");
    return null;
  });
}

/*
 * Secret rotation (lib/services/app-secrets.ts). A new secret goes back to the owner's browser once,
 * in this response only; it is never stored in clear.
 */

/** A second active secret, for zero-downtime rotation; no token is voided. */
export async function addSecretAction(clientId: unknown): Promise<ActionResult<RevealedSecret>> {
  return runGuardedAction("apps.secret.add", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const revealed = await addSecret(id, actor);
    revalidatePath(`/apps/${id}`);
    return revealed;
  });
}

/** Retires one secret: it fails at once; tokens already issued with it live until they expire. */
export async function retireSecretAction(clientId: unknown, secretId: unknown): Promise<ActionResult<{ secretId: string }>> {
  return runGuardedAction("apps.secret.retire", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const retired = await retireSecret(id, secretIdSchema.parse(secretId), actor);
    revalidatePath(`/apps/${id}`);
    return { secretId: retired.id };
  });
}

/** Compromise: one new secret, every other one retired and every access token of the app voided. */
export async function rollSecretAction(clientId: unknown): Promise<ActionResult<RevealedSecret>> {
  return runGuardedAction("apps.secret.roll", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const revealed = await rollSecret(id, actor);
    revalidatePath(`/apps/${id}`);
    return revealed;
  });
}

/*
 * Keys instead of a secret (private_key_jwt, RFC 7523; lib/services/app-keys.ts). Only public keys
 * reach the platform; the service checks them (or fetches the jwks_uri) and says what is wrong.
 */

/** The public part of an app's keys as the Keys card shows it (the date as an ISO string: it crosses to the browser). */
export interface ClientKeysItem {
  jwksUri: string | null;
  keys: { kid: string | null; kty: string; alg: string | null }[];
  updatedAt: string | null;
}

/** The app authenticates with these keys from now on: every client secret it had stops working at once. */
export async function setAppKeysAction(clientId: unknown, input: unknown): Promise<ActionResult<ClientKeysItem>> {
  return runGuardedAction("apps.keys.set", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const keys = await setAppKeys(id, actor, appKeysInputSchema.parse(input));
    revalidatePath(`/apps/${id}`);
    return { jwksUri: keys.jwksUri, keys: keys.keys, updatedAt: keys.updatedAt?.toISOString() ?? null };
  });
}

/** Back to a client secret (an API client's page reveals a new one) or to a public login client (PKCE). */
export async function clearAppKeysAction(clientId: unknown): Promise<ActionResult<null>> {
  return runGuardedAction("apps.keys.clear", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    await clearAppKeys(id, actor);
    revalidatePath(`/apps/${id}`);
    return null;
  });
}
