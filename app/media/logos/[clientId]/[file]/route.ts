import { getCurrentUser, toActor } from "@/lib/portal/session";
import { anyClientIdSchema } from "@/lib/schemas/apps";
import { findServedLogo } from "@/lib/services/app-logos";
import { getAppForViewer } from "@/lib/services/apps";

/**
 * `/media/logos/<clientId>/<sha256 prefix>.<png|jpg|webp>`: app logos from the platform's own origin,
 * so hosted pages never load a developer's server. The file name is the content hash, so
 * the answer never changes: cached for a year, immutable. A replaced logo's old name (or any other)
 * is 404. Content-Type is the one the upload check found (magic bytes + decode), never the upload's
 * claim; nosniff so no browser second-guesses it. Only an approved app's current logo is public;
 * the logo of an app that is not approved (pending, rejected, suspended) and one still waiting for
 * review are served only to the app's team and admins (the app page and the diff they review show
 * it), privately and uncached, and are 404 to anyone else: nothing unreviewed or withdrawn is
 * published from our origin, and no shared cache keeps it.
 */
const FILE = /^[0-9a-f]{16}\.(png|jpg|webp)$/;

export async function GET(_request: Request, { params }: { params: Promise<{ clientId: string; file: string }> }): Promise<Response> {
  // Next decodes the segment: an agent's client ID, a URL, arrives whole (logoPath encodes it).
  const { clientId, file } = await params;
  if (!anyClientIdSchema.safeParse(clientId).success || !FILE.test(file)) return notFound();
  const logo = await findServedLogo(clientId, file);
  if (!logo) return notFound();
  if (!logo.public && !(await mayView(clientId))) return notFound();
  return new Response(new Uint8Array(logo.bytes), {
    headers: {
      "Content-Type": logo.contentType,
      "Content-Length": String(logo.bytes.byteLength),
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": logo.public ? "public, max-age=31536000, immutable" : "private, no-store",
      // Opened directly, an image runs nothing; belt and braces for any browser that disagrees.
      "Content-Security-Policy": "default-src 'none'; sandbox",
    },
  });
}

/** The app's team or a platform admin (the service decides, as for the app page). */
async function mayView(clientId: string): Promise<boolean> {
  const user = await getCurrentUser();
  if (!user) return false;
  try {
    await getAppForViewer(clientId, await toActor(user));
    return true;
  } catch {
    return false;
  }
}

function notFound(): Response {
  return new Response("Not found", {
    status: 404,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
    },
  });
}
