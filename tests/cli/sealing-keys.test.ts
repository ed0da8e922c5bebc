import { randomBytes } from "node:crypto";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { query } from "../helpers/db";
import { authorize, createTestApp, createTestUser } from "../helpers/oidc";
import { newDatabase, pointAppAt, startServer } from "../helpers/server";

/**
 * README, Sealing key rotation, step by step with people who have TOTP: values sealed under the
 * legacy key (WEBHOOK_SECRETS_KEY, no key id) and under key A; rotate to B with A still listed and
 * TOTP sign-in works; `secrets reseal` moves every sealed value (TOTP and webhook secrets) under B;
 * A and the legacy key are dropped and TOTP sign-in still works, webhook secrets still open.
 */
const PASSWORD = "correct horse battery";
const REDIRECT = "http://localhost:9/callback";
const newKey = () => randomBytes(32).toString("base64url");
const LEGACY = newKey();
const A = newKey();
const B = newKey();

let databaseUrl: string;
let closeDb: () => Promise<void>;
let clientId: string;
/** Each person's TOTP secret, by handle. */
const totp = new Map<string, string>();
/** Each webhook endpoint's signing secret in plain text, by endpoint id. */
const webhookSecrets = new Map<string, string>();

/** This process's services under `env` (TOTP enrolment, sealing), as a server started with it would run. */
async function useKeys(env: { SEALING_KEYS: string; WEBHOOK_SECRETS_KEY: string }): Promise<void> {
  closeDb = await pointAppAt(databaseUrl, env);
}

async function enrolTotp(handle: string): Promise<void> {
  const user = await createTestUser(databaseUrl, { handle, password: PASSWORD });
  const { startTotpEnrolment, confirmTotpEnrolment } = await import("../../lib/services/second-factors");
  const actor = { kind: "user" as const, id: user.id, handle: user.handle, role: "user" as const };
  const { secret } = await startTotpEnrolment(actor, { password: PASSWORD });
  await confirmTotpEnrolment(actor, await generate({ secret }));
  totp.set(handle, secret);
}

/** A webhook endpoint of the test app whose one signing secret is sealed with the keys in use. */
async function addWebhookEndpoint(): Promise<void> {
  const { sealSecret } = await import("../../lib/events/secret-box");
  const id = `wh_${randomBytes(12).toString("hex")}`;
  const secret = `whsec_${randomBytes(24).toString("base64url")}`;
  const secrets = [{ box: await sealSecret(secret), createdAt: new Date().toISOString() }];
  await query(databaseUrl, `INSERT INTO "WebhookEndpoint" (id, "clientId", url, events, secrets, "updatedAt") VALUES ($1, $2, 'https://example.com/hook', '{}', $3, now())`, [
    id,
    clientId,
    JSON.stringify(secrets),
  ]);
  webhookSecrets.set(id, secret);
}

const storedBoxes = async () => ({
  totp: (await query<{ secretBox: string }>(databaseUrl, `SELECT "secretBox" FROM "SecondFactor" WHERE "secretBox" IS NOT NULL ORDER BY id`)).map((r) => r.secretBox),
  webhooks: (await query<{ secrets: { box: string }[] }>(databaseUrl, `SELECT secrets FROM "WebhookEndpoint" ORDER BY "createdAt", id`)).flatMap((r) => r.secrets.map((s) => s.box)),
});

/** Every person with TOTP signs in (password and code) at a server started with `env`. */
async function everyoneSignsIn(env: Record<string, string>): Promise<void> {
  // A code is accepted once per time step (RFC 6238 §5.2); each phase signs everyone in again, so
  // the last accepted step is forgotten here rather than waiting 30 s a phase.
  await query(databaseUrl, `UPDATE "SecondFactor" SET "lastTimeStep" = NULL`);
  const server = await startServer({ databaseUrl, env });
  try {
    for (const [handle, secret] of totp) {
      const signedIn = await authorize(server, { handle, password: PASSWORD, clientId, redirectUri: REDIRECT, secondFactor: () => generate({ secret }) });
      expect(signedIn.code, handle).toBeTruthy();
    }
  } catch (error) {
    (error as Error).message += `\nserver log:\n${server.logs.slice(-20).join("\n")}`;
    throw error;
  } finally {
    await server.stop();
  }
}

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: false });
  ({ clientId } = await createTestApp(databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true }));
});

afterAll(async () => {
  await closeDb?.();
});

describe("sealing key rotation (README)", () => {
  it("keeps TOTP sign-in working through rotate, reseal and dropping the old keys", async () => {
    // Before any keyring: WEBHOOK_SECRETS_KEY alone seals, without a key id.
    await useKeys({ SEALING_KEYS: "", WEBHOOK_SECRETS_KEY: LEGACY });
    await enrolTotp("legacylou");
    await addWebhookEndpoint();
    // Key A seals.
    await useKeys({ SEALING_KEYS: `a:${A}`, WEBHOOK_SECRETS_KEY: LEGACY });
    await enrolTotp("keyaamy");
    await addWebhookEndpoint();
    let boxes = await storedBoxes();
    expect(boxes.totp[0]).toMatch(/^v1\./);
    expect(boxes.totp[1]).toMatch(/^v2\.a\./);
    expect(boxes.webhooks[0]).toMatch(/^v1\./);
    expect(boxes.webhooks[1]).toMatch(/^v2\.a\./);

    // Step 1: B first, A still listed (and the legacy key kept): servers restart with it.
    const rotated = { SEALING_KEYS: `b:${B},a:${A}`, WEBHOOK_SECRETS_KEY: LEGACY };
    await everyoneSignsIn(rotated);
    await useKeys(rotated);
    await enrolTotp("keybbob");
    expect((await storedBoxes()).totp[2]).toMatch(/^v2\.b\./);

    // Step 2: `secrets reseal`, with the servers' keys.
    const resealed = await cliJson<Record<string, unknown>>(databaseUrl, ["secrets", "reseal"]);
    expect(resealed).toEqual({ sealing_key: "b", webhook_endpoints_resealed: 2, totp_factors_resealed: 2, remaining: {} });
    boxes = await storedBoxes();
    for (const box of [...boxes.totp, ...boxes.webhooks]) expect(box).toMatch(/^v2\.b\./);
    const audit = await query<{ detail: { sealing_key: string } }>(databaseUrl, `SELECT detail FROM "AuditLog" WHERE action = 'secrets.reseal'`);
    expect(audit.map((a) => a.detail.sealing_key)).toEqual(["b"]);

    // Step 3: A and the legacy key leave; everything still opens.
    const dropped = { SEALING_KEYS: `b:${B}`, WEBHOOK_SECRETS_KEY: newKey() };
    await everyoneSignsIn(dropped);
    await useKeys(dropped);
    const { openSecret } = await import("../../lib/events/secret-box");
    const endpoints = await query<{ id: string; secrets: { box: string }[] }>(databaseUrl, `SELECT id, secrets FROM "WebhookEndpoint" ORDER BY id`);
    for (const endpoint of endpoints) expect(await openSecret(endpoint.secrets[0]!.box)).toBe(webhookSecrets.get(endpoint.id));
    // Nothing left to move; a second run changes nothing.
    expect(await cliJson(databaseUrl, ["secrets", "reseal"])).toEqual({ sealing_key: "b", webhook_endpoints_resealed: 0, totp_factors_resealed: 0, remaining: {} });
  });

  it("says which key a value needs when SEALING_KEYS no longer lists it", async () => {
    await useKeys({ SEALING_KEYS: `a:${A}`, WEBHOOK_SECRETS_KEY: LEGACY });
    const { sealSecret, openSecret } = await import("../../lib/events/secret-box");
    const box = await sealSecret("s3cret");
    await useKeys({ SEALING_KEYS: `b:${B}`, WEBHOOK_SECRETS_KEY: LEGACY });
    await expect(openSecret(box)).rejects.toThrow('sealed secret under key id "a", which SEALING_KEYS does not list');
    // A box relabelled with the id of another listed key does not open, even one holding the same
    // key: the id is authenticated with the ciphertext.
    await useKeys({ SEALING_KEYS: `b:${B},a:${A},c:${A}`, WEBHOOK_SECRETS_KEY: LEGACY });
    await expect(openSecret(box.replace(/^v2\.a\./, "v2.c."))).rejects.toThrow();
    expect(await openSecret(box)).toBe("s3cret");
  });
});
