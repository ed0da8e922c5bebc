import { createHash } from "node:crypto";
import { db, type Tx } from "../database/client";
import { AppError } from "../errors";
import {
  LOGO_MAX_ASPECT,
  LOGO_MAX_SIDE,
  LOGO_MIN_SIDE,
  LOGO_TYPES,
  MAX_LOGO_BYTES,
  sniffLogoType,
  unacceptedLogoMessage,
  type LogoExtension,
} from "../schemas/apps";

/**
 * App logos: uploads are checked twice, by their magic bytes and by decoding them with
 * sharp (the decoded format must be the one the bytes claim), then stored in the database and served
 * from the platform's own origin (app/media/logos) under a content-hash file name, so a hosted page
 * never loads an image from a developer's server.
 */

export interface CheckedLogo {
  /** `<first 16 hex characters of the SHA-256>.<ext>`. */
  file: string;
  contentType: (typeof LOGO_TYPES)[LogoExtension];
  width: number;
  height: number;
  bytes: Buffer;
}

const SHARP_FORMAT: Record<LogoExtension, string> = { png: "png", jpg: "jpeg", webp: "webp" };
/** Every frame of an animation counts, so a still logo's limit with room for four. */
const MAX_INPUT_PIXELS = LOGO_MAX_SIDE * LOGO_MAX_SIDE * 4;

function refuse(message: string): AppError {
  return new AppError("invalid_request", message, { fields: { logo: message } });
}

/** Checks an upload and names it by its content; throws invalid_request (field `logo`) with a clear message. */
export async function checkLogo(input: Uint8Array): Promise<CheckedLogo> {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (bytes.byteLength > MAX_LOGO_BYTES) {
    throw refuse(`The logo is ${Math.ceil(bytes.byteLength / 1024)} KiB; at most 256 KiB`);
  }
  const ext = sniffLogoType(bytes);
  if (!ext) throw refuse(unacceptedLogoMessage(bytes));
  let width: number;
  let height: number;
  // Loaded on first use: libvips is ~6 MB of resident code every process would otherwise carry
  // (peak RSS), for the rare logo upload.
  const { default: sharp } = await import("sharp");
  try {
    // limitInputPixels: a small file can claim a huge canvas (a decompression bomb). sharp checks it
    // when it opens the image, from the header, before a pixel is decoded (metadata() included).
    const image = sharp(bytes, { failOn: "error", limitInputPixels: MAX_INPUT_PIXELS, animated: true });
    const meta = await image.metadata();
    if (meta.format !== SHARP_FORMAT[ext]) throw new Error(`decoded as ${meta.format}, not ${SHARP_FORMAT[ext]}`);
    if ((meta.pages ?? 1) > 1) throw refuse("The logo must be a still image, not an animation");
    width = meta.width ?? 0;
    height = meta.height ?? 0;
    if (width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE || width < LOGO_MIN_SIDE || height < LOGO_MIN_SIDE) {
      throw refuse(`The logo is ${width}×${height} pixels; each side must be ${LOGO_MIN_SIDE} to ${LOGO_MAX_SIDE}`);
    }
    if (Math.max(width, height) > LOGO_MAX_ASPECT * Math.min(width, height)) {
      throw refuse(`The logo is ${width}×${height} pixels; it must be roughly square (at most ${LOGO_MAX_ASPECT}:1)`);
    }
    // Decode every pixel: a valid header on a truncated or corrupt body must not pass.
    await image.raw().toBuffer();
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof Error && /pixel limit/i.test(error.message)) {
      throw refuse(`The logo's header claims more than ${MAX_INPUT_PIXELS.toLocaleString("en")} pixels; each side must be ${LOGO_MIN_SIDE} to ${LOGO_MAX_SIDE}`);
    }
    throw new AppError("invalid_request", "The logo could not be read as an image: the file is damaged or not what it claims to be", {
      fields: { logo: "The logo could not be read as an image: the file is damaged or not what it claims to be" },
      cause: error,
    });
  }
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
  return { file: `${hash}.${ext}`, contentType: LOGO_TYPES[ext], width, height, bytes };
}

/** Stores a checked logo for the app (idempotent: the same content is the same file). */
export async function storeLogo(tx: Tx, applicationId: number, logo: CheckedLogo): Promise<void> {
  await tx.appLogo.upsert({
    where: { applicationId_file: { applicationId, file: logo.file } },
    create: {
      applicationId,
      file: logo.file,
      contentType: logo.contentType,
      width: logo.width,
      height: logo.height,
      bytes: new Uint8Array(logo.bytes),
    },
    update: {},
  });
}

/** Deletes the app's logos that are neither approved nor waiting for review. */
export async function pruneLogos(tx: Tx, applicationId: number, keep: readonly (string | null | undefined)[]): Promise<void> {
  const files = keep.filter((f): f is string => typeof f === "string");
  await tx.appLogo.deleteMany({ where: { applicationId, file: { notIn: files } } });
}

/**
 * A logo to serve. `public: true` only for the current logo of an approved app: the one thing the
 * platform publishes (consent page, Connected apps), cached for good under its content hash. The
 * logo of an app that is not approved (pending, rejected, suspended) and one waiting in a pending
 * change are private (`public: false`): only for the app's team and admins, which the caller
 * checks (nothing unreviewed or withdrawn is published from our origin). Anything else
 * (a replaced logo, a refused change's, a guessed name) is null, so 404.
 */
export async function findServedLogo(
  clientId: string,
  file: string,
): Promise<{ bytes: Uint8Array; contentType: string; public: boolean } | null> {
  const app = await db.application.findUnique({
    where: { clientId },
    select: { id: true, status: true, logo: true, pendingChange: true },
  });
  if (!app) return null;
  const waiting = (app.pendingChange as { logo?: unknown } | null)?.logo;
  if (app.logo !== file && waiting !== file) return null;
  const logo = await db.appLogo.findUnique({
    where: { applicationId_file: { applicationId: app.id, file } },
    select: { bytes: true, contentType: true },
  });
  return logo ? { ...logo, public: app.status === "approved" && app.logo === file } : null;
}
