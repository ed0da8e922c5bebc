import { readFileSync } from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";
import sharp from "sharp";

/**
 * Test images for the logo checks, drawn with sharp so every format and size is a real,
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

/**
 * A real two-frame animation: frames of different colours stacked as pages, encoded
 * by sharp as an animated WebP or GIF. Must be refused (a logo is a still image; GIF is no
 * accepted type at all).
 */
export async function animatedLogo(format: "webp" | "gif", side = 64): Promise<Buffer> {
  const frame = (rgb: [number, number, number]) => Buffer.alloc(side * side * 3, Buffer.from(rgb));
  const pages = Buffer.concat([frame([37, 99, 235]), frame([220, 38, 38])]);
  const image = sharp(pages, { raw: { width: side, height: side * 2, channels: 3, pageHeight: side } });
  return format === "webp" ? image.webp({ loop: 0, delay: [200, 200] }).toBuffer() : image.gif({ loop: 0, delay: [200, 200] }).toBuffer();
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A decompression bomb's header: a well-formed PNG of a few KiB whose IHDR claims
 * `side`×`side` RGB pixels (50,000² × 3 bytes = 7.5 GB decoded), with a first IDAT of zeros and
 * a valid IEND. Decoding it would take the memory of the machine; it must be refused from its
 * header alone.
 */
export function pngBomb(side = 50_000): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const rows = deflateSync(Buffer.alloc((side * 3 + 1) * 16));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", rows),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}
