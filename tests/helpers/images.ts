import { readFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";

/**
 * Test images for the logo checks (issue 15), drawn with sharp so every format and size is a real,
 * decodable file; the two hostile ones (an HTML page and an SVG renamed to .png) are committed
 * under tests/fixtures/logos/.
 */
export type LogoFormat = "png" | "jpeg" | "webp";

export async function makeLogo(
  format: LogoFormat,
  options: { width?: number; height?: number; color?: string; noise?: boolean } = {},
): Promise<Buffer> {
  const width = options.width ?? 128;
  const height = options.height ?? 128;
  const image = options.noise
    ? // Random pixels do not compress: a way to make a file bigger than 256 KiB.
      sharp(Buffer.from(Array.from({ length: width * height * 3 }, () => Math.floor(Math.random() * 256))), {
        raw: { width, height, channels: 3 },
      })
    : sharp({
        create: { width, height, channels: 3, background: options.color ?? "#2563eb" },
      }).composite([
        {
          input: Buffer.from(
            `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="#fff"/></svg>`,
          ),
        },
      ]);
  if (format === "png") return image.png().toBuffer();
  if (format === "jpeg") return image.jpeg({ quality: options.noise ? 100 : 85 }).toBuffer();
  return image.webp({ lossless: Boolean(options.noise) }).toBuffer();
}

const FIXTURES = path.resolve(import.meta.dirname, "..", "fixtures", "logos");

/** An HTML page or an SVG (with a script) saved as .png: must be refused. */
export function hostileLogo(kind: "html" | "svg"): Buffer {
  return readFileSync(path.join(FIXTURES, `${kind}-renamed.png`));
}
