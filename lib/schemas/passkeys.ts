import { z } from "zod";

/**
 * Passkeys (part 1): what the browser sends back from navigator.credentials (as
 * @simplewebauthn/browser serializes it) and the names people give their passkeys. Parsed at the
 * edge (the portal's actions, the hosted sign-in's post); @simplewebauthn/server checks the rest.
 */
const base64url = z.string().max(4096).regex(/^[A-Za-z0-9_-]*$/, "Not base64url.");
const TRANSPORTS = ["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"] as const;
/** What every PublicKeyCredential answer carries. */
const credential = {
  id: base64url.min(1),
  rawId: base64url.min(1),
  type: z.literal("public-key"),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
};

export const registrationResponseSchema = z.object({
  ...credential,
  response: z.object({
    clientDataJSON: base64url.min(1),
    attestationObject: base64url.min(1),
    authenticatorData: base64url.optional(),
    publicKey: base64url.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    // Unknown transports (a newer browser's) are dropped rather than refused.
    transports: z
      .array(z.string().max(20))
      .max(10)
      .optional()
      .transform((list) => list?.filter((t): t is (typeof TRANSPORTS)[number] => (TRANSPORTS as readonly string[]).includes(t))),
  }),
});

export const authenticationResponseSchema = z.object({
  ...credential,
  response: z.object({
    clientDataJSON: base64url.min(1),
    authenticatorData: base64url.min(1),
    signature: base64url.min(1),
    userHandle: base64url.optional(),
  }),
});

export type RegistrationResponseInput = z.infer<typeof registrationResponseSchema>;
export type AuthenticationResponseInput = z.infer<typeof authenticationResponseSchema>;

export const passkeyNameSchema = z.string().trim().min(1, "Give the passkey a name.").max(64, "At most 64 characters.");
