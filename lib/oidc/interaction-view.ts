import { describeScope } from "../scopes";
import { findUserById } from "../services/users";
import { findInteractionPayload } from "./adapter";
import { findSignInClient } from "./clients";

/**
 * What the hosted login and consent pages show (app/interaction/[uid]), from a read-only lookup of
 * the interaction by uid. The page only renders; the form posts go to lib/oidc/interactions.ts,
 * which re-checks everything against the interaction cookie.
 */
export interface InteractionView {
  uid: string;
  prompt: "login" | "consent";
  client: { clientId: string; name: string; ownerHandle: string | null; firstParty: boolean };
  scopes: { scope: string; description: string }[];
  account: { handle: string; displayName: string } | null;
}

export async function findInteractionView(uid: string): Promise<InteractionView | null> {
  const payload = (await findInteractionPayload(uid)) as
    | {
        prompt?: { name?: string };
        params?: { client_id?: unknown; scope?: unknown };
        session?: { accountId?: string };
        result?: unknown;
      }
    | undefined;
  // A finished interaction (result recorded) cannot be answered again.
  if (!payload?.prompt?.name || payload.result) return null;
  const prompt = payload.prompt.name;
  if (prompt !== "login" && prompt !== "consent") return null;
  const clientId = typeof payload.params?.client_id === "string" ? payload.params.client_id : "";
  const client = await findSignInClient(clientId);
  if (!client) return null;
  const owner = await findUserById(client.ownerId);
  const scopes = (typeof payload.params?.scope === "string" ? payload.params.scope.split(" ") : [])
    .filter(Boolean)
    .map((scope) => ({ scope, description: describeScope(scope) }));
  const accountId = payload.session?.accountId;
  const user = accountId && /^[0-9]+$/.test(accountId) ? await findUserById(Number(accountId)) : null;
  return {
    uid,
    prompt,
    client: { clientId: client.clientId, name: client.name, ownerHandle: owner?.handle ?? null, firstParty: client.firstParty },
    scopes,
    account: user ? { handle: user.handle, displayName: user.displayName } : null,
  };
}

/** The logout confirmation page names the app that asked, when it identified itself. */
export async function findClientName(clientId: string | undefined): Promise<string | null> {
  if (!clientId) return null;
  return (await findSignInClient(clientId))?.name ?? null;
}
