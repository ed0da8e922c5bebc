import { handleApiRequest } from "@/lib/api/router";

/**
 * `next dev` parity only: server.ts answers /api/v1 from the same table before Next sees the
 * request (lib/api/router.ts). One catch-all, so unknown paths and wrong methods get the API's
 * own 404/405 envelopes here too.
 */
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const handle = (request: Request) => handleApiRequest(request);

export const GET = handle;
export const HEAD = handle;
export const POST = handle;
export const PUT = handle;
export const PATCH = handle;
export const DELETE = handle;
export const OPTIONS = handle;
