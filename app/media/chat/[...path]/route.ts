/**
 * `/media/chat/<name>.<ext>` and `/media/chat/thumbs/<name>.jpg`: the demo world's chat media. There
 * is no upload store yet, so each item is drawn as a labelled placeholder (no remote images).
 */
const NAME = /^([a-z0-9-]{1,60})\.(jpg|gif|mp4)$/;

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export async function GET(_request: Request, { params }: { params: Promise<{ path: string[] }> }): Promise<Response> {
  const { path } = await params;
  const isThumb = path.length === 2 && path[0] === "thumbs";
  const file = isThumb ? path[1] : path.length === 1 ? path[0] : undefined;
  const match = file ? NAME.exec(file) : null;
  if (!match) return new Response("Not found", { status: 404, headers: { "Content-Security-Policy": "default-src 'none'" } });
  const label = escapeXml(match[1]!.replace(/-\d+$/, "").replace(/-/g, " "));
  const kind = match[2] === "mp4" ? "video" : match[2] === "gif" ? "gif" : "image";
  const [w, h] = isThumb ? [320, 180] : [1280, 720];
  let hue = 0;
  for (const ch of match[1]!) hue = (hue * 31 + ch.charCodeAt(0)) % 360;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${label} (${kind})">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue} 70% 55%)"/><stop offset="1" stop-color="hsl(${(hue + 60) % 360} 70% 35%)"/></linearGradient></defs>
<rect width="100%" height="100%" fill="url(#g)"/>
<text x="50%" y="50%" fill="#fff" font-family="system-ui, sans-serif" font-size="${Math.round(h / 10)}" text-anchor="middle" dominant-baseline="middle">${label}</text>
</svg>`;
  return new Response(svg, {
    headers: {
      "Content-Type": "image/svg+xml; charset=utf-8",
      "Cache-Control": "public, max-age=86400",
      // The image's own CSP (an SVG opened directly must not run anything); the site-wide security
      // headers come from proxy.ts (lib/http/security-headers.ts).
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    },
  });
}
