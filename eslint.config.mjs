import boundaries from "eslint-plugin-boundaries";
import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";
import { defineConfig, globalIgnores } from "eslint/config";

/**
 * `npm run lint` (also run by .ci/run). Next's recommended rules, plus the layering of STYLE.md
 * ("Dependencies point down"), so that a newcomer learns it from the linter, not from a review:
 *
 *   entry (server.ts, bin/, scripts/)  →  anything below
 *   lib/cli (the operator CLI's commands; bin/platform.ts dispatches)  →  api (`mcp tools`), oidc, services, shared
 *   app/ and pages/  →  components, portal edge, api (the Next catch-all of /api/v1), oidc, services, shared
 *   components  →  components, server actions (lib/actions), shared
 *   lib/server (wiring)  →  api, oidc, services, seed, data, shared, and components for the hosted
 *                           login page's fast path (lib/server/hosted-page.ts renders Next's page)
 *   lib/api  →  oidc, services, shared          lib/oidc  →  services, data, shared
 *   portal edge (lib/portal: session, next-auth; lib/actions)  →  services, shared
 *   lib/services, lib/seed  →  services, seed, data, shared (one layer; services build sandbox worlds with the generator)
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
  { type: "services", pattern: ["lib/services/**", "lib/events/**"], partialMatch: false },
  { type: "seed", pattern: ["lib/seed/**"], partialMatch: false },
  { type: "data", pattern: ["lib/database/**", "lib/queries/**"], partialMatch: false },
  {
    type: "shared",
    pattern: ["lib/schemas/**", "lib/crypto/**", "lib/http/**", "lib/i18n/**", "lib/generated/**"],
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
  // components: lib/server/hosted-page.ts renders the hosted login page's components itself.
  server: ["server", "api", "oidc", "services", "seed", "data", "shared", "components"],
  // `keys rotate` calls lib/oidc/keys; the database is opened by bin/platform.ts, not here. `mcp tools`
  // prints the MCP server's tool list from lib/api/mcp/tools.ts.
  cli: ["cli", "api", "oidc", "services", "shared"],
  api: ["api", "oidc", "services", "shared"],
  oidc: ["oidc", "services", "data", "shared"],
  actions: ["actions", "portal-edge", "services", "shared"],
  "portal-edge": ["portal-edge", "services", "shared"],
  // A sandbox's synthetic world is built by the demo-world generator (lib/seed), on first use and on reset.
  services: ["services", "seed", "data", "shared"],
  seed: ["seed", "services", "data", "shared"],
  data: ["data", "shared"],
  shared: ["shared"],
};

/**
 * One home for each rule (STYLE.md Permissions): who may do what with an app is decided
 * by `capabilities(app, actor)` in lib/services/app-access.ts. Anywhere else in the code that acts
 * on apps (services, actions, the API, the CLI, the app pages), comparing with a team role
 * literal, reading a role rank or asking for someone's team role is a second permission table
 * in the making. tests/lint/permissions.test.ts proves that such a check fails `npm run lint`.
 */
const ROLE = "/^(owner|admin|viewer)$/";
const permissionChecks = [
  ...["left", "right"].map((side) => ({
    selector: `BinaryExpression[operator=/^[!=]==?$/][${side}.type='Literal'][${side}.value=${ROLE}]`,
    message: "Permission check outside lib/services/app-access.ts: read capabilities(app, actor) instead of comparing roles.",
  })),
  {
    selector: `SwitchCase[test.type='Literal'][test.value=${ROLE}]`,
    message: "Permission check outside lib/services/app-access.ts: read capabilities(app, actor) instead of switching on roles.",
  },
  {
    selector: "Identifier[name=/^(ROLE_RANK|roleRank|rankOf|roleInTeam|teamRole|mayAct|handlesSecrets)$/]",
    message: "Role ranks and team roles live in lib/services/app-access.ts: read capabilities(app, actor).",
  },
];

/**
 * One gate for every server action (STYLE.md, "Surfaces share the rules"): each exported function
 * of lib/actions is exactly `return runGuardedAction(name, kind, body)` (lib/actions/gate.ts), which
 * checks the session, the role and the second-factor policy before the body runs. Nothing may run
 * before the gate, no action may reach the session by another way, and an action on the person's
 * own account (the kind that asks for no second factor) is allowed only in the files that hold
 * those actions. tests/lint/action-gate.test.ts proves each of these fails `npm run lint`.
 */
const GATE = "Server actions pass one gate: an exported action is exactly `return runGuardedAction(name, kind, body)` (lib/actions/gate.ts).";
const actionGate = [
  {
    selector:
      "Program > ExportNamedDeclaration > FunctionDeclaration:not([body.body.length=1][body.body.0.type='ReturnStatement'][body.body.0.argument.callee.name='runGuardedAction'])",
    message: GATE,
  },
  { selector: "Program > ExportNamedDeclaration > VariableDeclaration", message: GATE },
  { selector: "Program > ExportNamedDeclaration[declaration=null][exportKind!='type']", message: GATE },
  { selector: "Program > ExportDefaultDeclaration", message: GATE },
  {
    selector: "ImportSpecifier[imported.name=/^(runAction|requireUserActor|requireUser|getCurrentUser|toActor|isSecondFactorMissing)$/]",
    message: "Server actions reach the session and the second-factor policy only through runGuardedAction (lib/actions/gate.ts).",
  },
  {
    selector: "CallExpression[callee.name='runGuardedAction']:not([arguments.0.type='Literal']), CallExpression[callee.name='runGuardedAction']:not([arguments.1.type=/^(Literal|ObjectExpression)$/])",
    message: "runGuardedAction takes its name and kind as literals, so this rule can read them.",
  },
];
/** Files whose actions act on the signed-in person's own account: the only ones that may use the "account" kinds. */
const ACCOUNT_ACTION_FILES = ["lib/actions/second-factors.ts", "lib/actions/passkeys.ts", "lib/actions/sign-in-sessions.ts", "lib/actions/connected-apps.ts"];
const accountKind = {
  selector: "CallExpression[callee.name='runGuardedAction'][arguments.1.value='account'], CallExpression[callee.name='runGuardedAction'] > ObjectExpression > Property[key.name='accountOf']",
  message:
    "The \"account\" kinds ask for no second factor: only actions on the person's own account (ACCOUNT_ACTION_FILES in eslint.config.mjs) may use them; an app or admin action uses \"app\" or { admin }.",
};

export default defineConfig([
  globalIgnores([".next/**", "node_modules/**", "sdk/dist/**", ".sdk-package/**", "lib/generated/**", ".data/**", ".test-data/**", "next-env.d.ts", "bench/results/**", "test-results/**", "playwright-report/**", "public/hosted/**"]),
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
      // Unused code is dead code; `_`-prefixed names are deliberate.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
    },
  },
  {
    files: [
      "lib/services/**/*.ts",
      "lib/actions/**/*.ts",
      "lib/api/**/*.ts",
      "lib/cli/**/*.ts",
      "bin/**/*.ts",
      "app/**/apps/**/*.{ts,tsx}",
    ],
    // app-access.ts is the home; actor.ts defines the platform role ("user" | "admin") it reads.
    ignores: ["lib/services/app-access.ts", "lib/services/actor.ts"],
    rules: { "no-restricted-syntax": ["error", ...permissionChecks] },
  },
  {
    // Later blocks replace no-restricted-syntax's options, so each repeats the permission checks.
    files: ["lib/actions/**/*.ts"],
    ignores: ["lib/actions/gate.ts", "lib/actions/result.ts", "lib/actions/**/*.test.ts", ...ACCOUNT_ACTION_FILES],
    rules: { "no-restricted-syntax": ["error", ...permissionChecks, ...actionGate, accountKind] },
  },
  {
    files: ACCOUNT_ACTION_FILES,
    rules: { "no-restricted-syntax": ["error", ...permissionChecks, ...actionGate] },
  },
]);
