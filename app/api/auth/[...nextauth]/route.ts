import NextAuth from "next-auth";
import { getAuthOptions } from "@/lib/portal/auth";

/** next-auth's endpoints (sign-in redirect, callback, session, csrf) for the portal. */
async function handler(request: Request, context: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  // next-auth 4 reads `params.nextauth` synchronously; Next 16 hands params as a promise.
  const params = await context.params;
  return NextAuth(await getAuthOptions())(request, { params });
}

export { handler as GET, handler as POST };
