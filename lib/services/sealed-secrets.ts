import { db } from "../database/client";
import { isSealedUnderCurrentKey, openSecret, sealSecret, sealedWith } from "../events/secret-box";
import type { Actor } from "./actor";
import { recordAudit } from "./audit";
import { getSealingKeyring } from "./settings";

/**
 * `platform secrets reseal` (README, Sealing key rotation): every sealed secret (webhook signing
 * secrets, TOTP secrets) moves under the key that seals now, so the keys before it can leave
 * SEALING_KEYS. Nothing announces it on the change channel: the secrets themselves do not change,
 * only how they are kept, and a cache keyed by the old box (the delivery worker's) still holds the
 * right plaintext.
 *
 * Each row is rewritten only if it still holds what was read (compare and set), so a rotation or
 * an enrolment that wrote meanwhile is never undone; what such a race leaves under an old key is
 * counted in `remaining`, and running the command again moves it.
 */

/** Rows read at a time. */
const BATCH = 500;

interface StoredSecret {
  box: string;
}

export interface ResealResult {
  /** The key id new values are sealed under; null: the legacy key (SEALING_KEYS unset). */
  sealingKey: string | null;
  webhookEndpoints: number;
  totpFactors: number;
  /** Sealed values still under another key, by key id (`legacy`: WEBHOOK_SECRETS_KEY's); empty when done. */
  remaining: Record<string, number>;
}

/** Every webhook endpoint's secrets, BATCH rows at a time. */
async function* webhookEndpointRows() {
  for (let after = ""; ; ) {
    const rows = await db.webhookEndpoint.findMany({ where: { id: { gt: after } }, orderBy: { id: "asc" }, take: BATCH, select: { id: true, secrets: true } });
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    for (const row of rows) yield { id: row.id, stored: row.secrets, secrets: row.secrets as unknown as StoredSecret[] };
  }
}

/** Every TOTP factor's sealed secret (confirmed or waiting for its first code), BATCH rows at a time. */
async function* totpFactorRows() {
  for (let after = 0; ; ) {
    const rows = await db.secondFactor.findMany({
      where: { id: { gt: after }, secretBox: { not: null } },
      orderBy: { id: "asc" },
      take: BATCH,
      select: { id: true, secretBox: true },
    });
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    for (const row of rows) yield { id: row.id, secretBox: row.secretBox! };
  }
}

export async function resealSecrets(actor: Actor): Promise<ResealResult> {
  const keyring = await getSealingKeyring();
  const current = (box: string) => isSealedUnderCurrentKey(box, keyring);
  const reseal = async (box: string) => sealSecret(await openSecret(box));

  let webhookEndpoints = 0;
  for await (const row of webhookEndpointRows()) {
    if (row.secrets.every((s) => current(s.box))) continue;
    const secrets = await Promise.all(row.secrets.map(async (s) => (current(s.box) ? s : { ...s, box: await reseal(s.box) })));
    const { count } = await db.webhookEndpoint.updateMany({
      where: { id: row.id, secrets: { equals: row.stored as object } },
      data: { secrets: secrets as object[] },
    });
    webhookEndpoints += count;
  }

  let totpFactors = 0;
  for await (const row of totpFactorRows()) {
    if (current(row.secretBox)) continue;
    const { count } = await db.secondFactor.updateMany({ where: { id: row.id, secretBox: row.secretBox }, data: { secretBox: await reseal(row.secretBox) } });
    totpFactors += count;
  }

  const remaining = await countSealedUnderOtherKeys();
  const sealingKey = keyring.sealing?.id ?? null;
  await recordAudit({
    actor,
    action: "secrets.reseal",
    targetType: "setting",
    targetId: "sealing-keys",
    detail: { sealing_key: sealingKey, webhook_endpoints: webhookEndpoints, totp_factors: totpFactors, remaining },
  });
  return { sealingKey, webhookEndpoints, totpFactors, remaining };
}

/** Sealed values not under the key that seals now, by the key id they are under (`legacy` for none). */
export async function countSealedUnderOtherKeys(): Promise<Record<string, number>> {
  const keyring = await getSealingKeyring();
  const counts: Record<string, number> = {};
  const count = (box: string) => {
    if (isSealedUnderCurrentKey(box, keyring)) return;
    const id = sealedWith(box) ?? "legacy";
    counts[id] = (counts[id] ?? 0) + 1;
  };
  for await (const row of webhookEndpointRows()) for (const s of row.secrets) count(s.box);
  for await (const row of totpFactorRows()) count(row.secretBox);
  return counts;
}
