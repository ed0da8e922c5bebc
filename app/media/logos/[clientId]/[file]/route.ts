import { clientIdSchema } from "@/lib/schemas/apps";
import { findServedLogo } from "@/lib/services/app-logos";

/**
 * `/media/logos/<clientId>/<sha256 prefix>.<png|jpg|webp>`: app logos from the platform's own origin
 * (issue 15), so hosted pages never load a developer's server. The file name is the content hash, so
 * the answer never changes: cached for a year, immutable. A replaced logo's old name (or any other)
 * is 404. Content-Type is the one the upload check found (magic bytes + decode), never the upload's
 * claim; nosniff so no browser second-guesses it.
 */
const FILE = /^[0-9a-f]{16}\.(png|jpg|webp)$/;

export async function GET(_request: Request, { params }: { params: Promise<{ clientId: string; file: string }> }): Promise<Response> {
  const { clientId, file } = await params;
  if (!clientIdSchema.safeParse(clientId).success || !FILE.test(file)) return notFound();
  const logo = await findServedLogo(clientId, file);
  if (!logo) return notFound();
  return new Response(new Uint8Array(logo.bytes), {
    headers: {
      "Content-Type": logo.contentType,
      "Content-Length": String(logo.bytes.byteLength),
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "public, max-age=31536000, immutable",
      // Opened directly, an image runs nothing; belt and braces for any browser that disagrees.
      "Content-Security-Policy": "default-src 'none'; sandbox",
    },
  });
}

function notFound(): Response {
  return new Response("Not found", {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
  });
}
