import boundaries from "eslint-plugin-boundaries";
import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";
import { defineConfig, globalIgnores } from "eslint/config";

/**
 * `npm run lint` (also run by .ci/run). Next's recommended rules, plus the layering of STYLE.md
 * ("Dependencies point down"), so that a newcomer learns it from the linter, not from a review:
 *
 *   entry (server.ts, bin/, scripts/)  →  anything below
 *   lib/cli (the operator CLI's commands; bin/platform.ts dispatches)  →  oidc, services, shared
 *   app/ and pages/  →  components, portal edge, api (the Next catch-all of /api/v1), oidc, services, shared
 *   components  →  components, server actions (lib/actions), shared
 *   lib/server (wiring)  →  api, oidc, services, seed, data, shared
 *   lib/api  →  oidc, services, shared          lib/oidc  →  services, data, shared
 *   portal edge (lib/portal: session, next-auth; lib/actions)  →  services, shared
 *   lib/services, lib/seed  →  services, data, shared
 *   lib/database, lib/queries  →  data, shared
 *   shared (env, errors, logger, schemas, scopes, crypto, http, generated client)  →  shared
 *
 * tests/lint/layers.test.ts proves that an upward import fails this config.
 */
const layers = [
  { type: "entry", pattern: ["bin/**", "scripts/**"], partialMatch: false },
  // pages/ holds only the hosted sign-in pages (Pages Router, no JavaScript): the same layer as app/.
  { type: "pages", pattern: ["app/**", "pages/**"], partialMatch: false },
  { type: "components", pattern: ["components/**"], partialMatch: false },
  { type: "server", pattern: ["lib/server/**"], partialMatch: false },
  { type: "cli", pattern: ["lib/cli/**"], partialMatch: false },
  { type: "api", pattern: ["lib/api/**"], partialMatch: false },
  { type: "oidc", pattern: ["lib/oidc/**"], partialMatch: false },
  { type: "actions", pattern: ["lib/actions/**"], partialMatch: false },
  { type: "portal-edge", pattern: ["lib/portal/**"], partialMatch: false },
  { type: "services", pattern: ["lib/services/**"], partialMatch: false },
  { type: "seed", pattern: ["lib/seed/**"], partialMatch: false },
  { type: "data", pattern: ["lib/database/**", "lib/queries/**"], partialMatch: false },
  {
    type: "shared",
    pattern: ["lib/schemas/**", "lib/crypto/**", "lib/http/**", "lib/generated/**"],
    partialMatch: false,
  },
  // The files directly in lib/ (env, errors, logger, scopes, avatars) are shared too; boundaries
  // classifies folders, so lib/ itself is the element. Listed last: deeper folders match first.
  { type: "shared", pattern: "lib", partialMatch: false },
];

const allow = {
  entry: ["entry", "server", "cli", "api", "oidc", "services", "seed", "data", "shared"],
  pages: ["pages", "components", "actions", "portal-edge", "api", "oidc", "services", "shared"],
  components: ["components", "actions", "shared"],
  server: ["server", "api", "oidc", "services", "seed", "data", "shared"],
  // `keys rotate` calls lib/oidc/keys; the database is opened by bin/platform.ts, not here.
  cli: ["cli", "oidc", "services", "shared"],
  api: ["api", "oidc", "services", "shared"],
  oidc: ["oidc", "services", "data", "shared"],
  actions: ["actions", "portal-edge", "services", "shared"],
  "portal-edge": ["portal-edge", "services", "shared"],
  services: ["services", "data", "shared"],
  seed: ["seed", "services", "data", "shared"],
  data: ["data", "shared"],
  shared: ["shared"],
};

export default defineConfig([
  globalIgnores([".next/**", "node_modules/**", "sdk/dist/**", "lib/generated/**", ".data/**", ".test-data/**", "next-env.d.ts", "bench/results/**", "test-results/**", "playwright-report/**"]),
  ...nextCoreWebVitals,
  ...nextTypescript,
  {
    files: ["**/*.{ts,tsx,mjs}"],
    plugins: { boundaries },
    settings: {
      "boundaries/elements": layers,
      "boundaries/include": ["server.ts", "proxy.ts", "app/**", "pages/**", "components/**", "lib/**", "bin/**", "scripts/**"],
      "import/resolver": { typescript: { project: "./tsconfig.json" }, node: true },
    },
    rules: {
      "boundaries/dependencies": [
        "error",
        {
          default: "disallow",
          message: "STYLE.md layering: dependencies point down; see the layer table in eslint.config.mjs",
          policies: [
            ...Object.entries(allow).map(([from, to]) => ({
              from: { element: { type: from } },
              allow: { to: { element: { types: { anyOf: to } } } },
            })),
          ],
        },
      ],
      "import/no-cycle": ["error", { ignoreExternal: true }],
      // Unused code is dead code (issue 13); `_`-prefixed names are deliberate.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
    },
  },
]);
