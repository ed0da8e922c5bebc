import { AVATAR_HANDLE, avatarSvg } from "@/lib/avatars";

/** `/avatars/<handle>.svg[?size=N]`: the generated avatar of lib/avatars.ts (no remote images). */
export async function GET(request: Request, { params }: { params: Promise<{ file: string }> }): Promise<Response> {
  const { file } = await params;
  const handle = /^(.+)\.svg$/.exec(file)?.[1];
  if (!handle || !AVATAR_HANDLE.test(handle)) return new Response("Not found", { status: 404, headers: { "Content-Security-Policy": "default-src 'none'" } });
  const size = Number(new URL(request.url).searchParams.get("size") ?? 128);
  return new Response(avatarSvg(handle, Number.isFinite(size) ? size : 128), {
    headers: {
      "Content-Type": "image/svg+xml; charset=utf-8",
      "Cache-Control": "public, max-age=86400",
      // The image's own CSP (an SVG opened directly must not run anything); the site-wide security
      // headers come from proxy.ts (lib/http/security-headers.ts).
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    },
  });
}
