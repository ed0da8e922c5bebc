import { z } from "zod";

/**
 * What proves the person at the keyboard is the account's owner, not just someone holding its
 * portal session: the password, or a current code (the authenticator app's or a recovery code).
 * Adding and removing a second factor ask for one (lib/services/second-factors.ts checkAccountProof).
 */
export const accountProofSchema = z.union([
  z.object({ code: z.string().trim().min(1, "Enter the code.").max(40), password: z.undefined().optional() }),
  z.object({ password: z.string().min(1, "Enter your password.").max(1024), code: z.undefined().optional() }),
]);
