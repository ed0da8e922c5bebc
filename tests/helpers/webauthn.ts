import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { isoCBOR } from "@simplewebauthn/server/helpers";

/**
 * A software authenticator for tests: makes discoverable ES256 passkeys with "none"
 * attestation and signs assertions, as a browser's navigator.credentials would answer, with
 * node:crypto and the CBOR encoder @simplewebauthn/server ships (WebAuthn §6.1 authenticator data,
 * §6.5 attestation object, COSE_Key of RFC 9053). It lets tests break an answer on purpose.
 */
interface StoredCredential {
  id: string;
  privateKey: KeyObject;
  rpId: string;
  /** base64url, the user.id of the registration options (the account's user handle). */
  userHandle: string;
  counter: number;
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

export interface AssertOptions {
  /** Which credential answers (default: the first one allowed, or the first stored for a usernameless request). */
  credentialId?: string;
  /** The UV flag (default true: a PIN or biometric unlocked the key). */
  userVerified?: boolean;
  /** The counter to report instead of the next one (a cloned authenticator's). */
  counter?: number;
  /** Sign something else than what the server checks (a forged signature). */
  forgeSignature?: boolean;
  /** The origin the browser would put in the client data. */
  origin?: string;
}

export class SoftwareAuthenticator {
  readonly credentials: StoredCredential[] = [];

  /** `synced`: backup-eligible and backed up (a synced passkey); default false (device-bound). */
  constructor(
    private readonly origin: string,
    private readonly options: { synced?: boolean } = {},
  ) {}

  private flags(userVerified: boolean, attested: boolean): number {
    return FLAG_UP | (userVerified ? FLAG_UV : 0) | (this.options.synced ? FLAG_BE | FLAG_BS : 0) | (attested ? FLAG_AT : 0);
  }

  /** navigator.credentials.create() with the server's options. */
  register(options: PublicKeyCredentialCreationOptionsJSON): RegistrationResponseJSON {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const id = randomBytes(16);
    const rpId = options.rp.id!;
    // COSE_Key: kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
    const coseKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
    const counter = Buffer.alloc(4);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([this.flags(true, true)]), counter, Buffer.alloc(16), idLength, id, Buffer.from(coseKey)]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ["fmt", "none"],
        ["attStmt", new Map<string, string>()],
        ["authData", authData],
      ]),
    );
    const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.create", challenge: options.challenge, origin: this.origin, crossOrigin: false }));
    this.credentials.push({ id: b64url(id), privateKey, rpId, userHandle: options.user.id, counter: 0 });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key",
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
    };
  }

  /** navigator.credentials.get() with the server's options. */
  assert(options: PublicKeyCredentialRequestOptionsJSON, how: AssertOptions = {}): AuthenticationResponseJSON {
    const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
    const credential = this.credentials.find((c) =>
      how.credentialId ? c.id === how.credentialId : allowed.length ? allowed.includes(c.id) : c.rpId === options.rpId,
    );
    if (!credential) throw new Error("no credential of this authenticator answers these options");
    credential.counter = how.counter ?? credential.counter + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    const authData = Buffer.concat([sha256(credential.rpId), Buffer.from([this.flags(how.userVerified ?? true, false)]), counter]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin: how.origin ?? this.origin, crossOrigin: false }));
    const signed = Buffer.concat([authData, sha256(clientDataJSON)]);
    if (how.forgeSignature) signed.writeUInt8(signed.readUInt8(0) ^ 0xff, 0);
    const signature = sign("sha256", signed, credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
    };
  }
}
