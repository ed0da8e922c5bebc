import { defaultEnv } from "../env";
import type { Command } from "./command";

/** `keys …`: the token signing keys. */

export const keysRotate: Command = {
  usage: "keys rotate [--json]",
  summary:
    "Rotate the token signing keys: new keys sign from now on, retired ones stay published until their tokens expire",
  options: {},
  positionals: [],
  async run() {
    // keys.ts logs each generated key at info level on stdout, which would break --json output.
    defaultEnv("LOG_LEVEL", "warn");
    const [{ rotateSigningKeys }, { recordAudit, CLI_ACTOR }] = await Promise.all([
      import("../oidc/keys"),
      import("../services/audit"),
    ]);
    const { retired } = await rotateSigningKeys();
    await recordAudit({ actor: CLI_ACTOR, action: "keys.rotate", targetType: "setting", targetId: "signing-keys", detail: { retired } });
    return {
      json: { retired },
      text:
        `Rotated the signing keys (retired: ${retired.join(", ") || "none"}).\n` +
        "Running processes switch to the new keys within SIGNING_KEY_POLL_SECONDS (default 60).",
    };
  },
};
