import type { Command } from "./command";

/**
 * `secrets reseal`: the operator's step of a sealing key rotation (README, Sealing key rotation).
 * Not `apps secrets`: those are an app's client secrets; these are the platform's keys at rest.
 */
export const secretsReseal: Command = {
  usage: "secrets reseal [--json]",
  summary: "Re-seal every webhook signing secret and TOTP secret under the first key of SEALING_KEYS, so older keys can be dropped",
  helpDetails: [
    "",
    "Run it with the same SEALING_KEYS (and WEBHOOK_SECRETS_KEY) as the servers, after they restarted with the new key first.",
    "`remaining` counts values still under another key (a rotation that raced it): run it again; drop the old key once it is empty.",
  ],
  options: {},
  positionals: [],
  async run() {
    const [{ resealSecrets }, { CLI_ACTOR }] = await Promise.all([import("../services/sealed-secrets"), import("../services/actor")]);
    const result = await resealSecrets(CLI_ACTOR);
    const key = result.sealingKey ?? "legacy (SEALING_KEYS is unset)";
    const left = Object.entries(result.remaining);
    return {
      json: {
        sealing_key: result.sealingKey,
        webhook_endpoints_resealed: result.webhookEndpoints,
        totp_factors_resealed: result.totpFactors,
        remaining: result.remaining,
      },
      text:
        `Re-sealed under ${key}: ${result.webhookEndpoints} webhook endpoints' secrets, ${result.totpFactors} TOTP secrets.\n` +
        (left.length
          ? `Still under other keys: ${left.map(([id, n]) => `${id} ${n}`).join(", ")}; run it again before dropping them.`
          : "Nothing is sealed under another key: keys after the first may leave SEALING_KEYS."),
    };
  },
};
