#!/usr/bin/env -S npx tsx
/**
 * The operator CLI of PRODUCT.md: `npm run platform -- <command>` (also the package's `bin`).
 * This file dispatches: it parses the environment, finds the command, parses its options with
 * node:util parseArgs, opens the database and prints the output. The commands live in lib/cli, one
 * file per group; they validate with the same zod schemas as the portal and do the work through
 * lib/services, so the CLI cannot disagree with the portal.
 *
 * Database: DATABASE_URL when set. Otherwise the embedded PostgreSQL under DATA_DIR: if `npm start`
 * is running it is reached on EMBEDDED_PG_PORT with the password kept beside its data; if not, it
 * is started for the duration of the command.
 *
 * Output: human-readable, or one JSON document with --json. Errors: one line on stderr (a JSON line
 * with --json), exit code 2 for usage errors and 1 for everything else. Passwords, secret hashes and
 * database passwords are never printed; a client secret only once, by `apps create --approve` or
 * `apps secrets add|roll`; a sandbox test user's generated password only once, by `apps sandbox users add`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import * as agents from "../lib/cli/agents";
import * as mcp from "../lib/cli/mcp";
import * as apps from "../lib/cli/apps";
import * as members from "../lib/cli/app-members";
import * as secrets from "../lib/cli/app-secrets";
import * as appKeys from "../lib/cli/app-keys";
import * as sandboxes from "../lib/cli/sandboxes";
import * as sealed from "../lib/cli/sealed-secrets";
import { attachDashedValues, JSON_OPTION, UsageError, type Command, type Values } from "../lib/cli/command";
import * as events from "../lib/cli/events";
import * as keys from "../lib/cli/keys";
import * as usage from "../lib/cli/usage";
import * as users from "../lib/cli/users";
import * as webhooks from "../lib/cli/webhooks";
import { EnvError, env, resetEnv, type Env } from "../lib/env";

/**
 * Every command, in the order `--help` lists them; each lives in lib/cli, one file per group, and
 * imports the services only when it runs (lib/cli/command.ts says why).
 */
const COMMANDS: Record<string, Command> = {
  "apps create": apps.appsCreate,
  "apps approve": apps.appsApprove,
  "apps reject": apps.appsReject,
  "apps suspend": apps.appsSuspend,
  "apps show": apps.appsShow,
  "apps list": apps.appsList,
  "apps update": apps.appsUpdate,
  "apps limit": apps.appsLimit,
  "apps changes approve": apps.appsChangesApprove,
  "apps changes reject": apps.appsChangesReject,
  "apps members list": members.appsMembersList,
  "apps members add": members.appsMembersAdd,
  "apps members remove": members.appsMembersRemove,
  "apps transfer": apps.appsTransfer,
  "agents list": agents.agentsList,
  "agents show": agents.agentsShow,
  "agents suspend": agents.agentsSuspend,
  "agents resume": agents.agentsResume,
  "agents block": agents.agentsBlock,
  "agents unblock": agents.agentsUnblock,
  "agents trust": agents.agentsTrust,
  "agents untrust": agents.agentsUntrust,
  "agents review": agents.agentsReview,
  "mcp tools": mcp.mcpTools,
  "apps usage": usage.appsUsage,
  "apps requests": usage.appsRequests,
  "usage retention": usage.usageRetention,
  "apps secrets list": secrets.appsSecretsList,
  "apps secrets add": secrets.appsSecretsAdd,
  "apps secrets retire": secrets.appsSecretsRetire,
  "apps secrets roll": secrets.appsSecretsRoll,
  "apps keys set": appKeys.appsKeysSet,
  "apps keys show": appKeys.appsKeysShow,
  "apps keys clear": appKeys.appsKeysClear,
  "apps sandbox show": sandboxes.appsSandboxShow,
  "apps sandbox secret roll": sandboxes.appsSandboxSecretRoll,
  "apps sandbox reset": sandboxes.appsSandboxReset,
  "apps sandbox trigger": sandboxes.appsSandboxTrigger,
  "apps sandbox users list": sandboxes.appsSandboxUsersList,
  "apps sandbox users add": sandboxes.appsSandboxUsersAdd,
  "apps sandbox users remove": sandboxes.appsSandboxUsersRemove,
  "apps webhooks add": webhooks.appsWebhooksAdd,
  "apps webhooks list": webhooks.appsWebhooksList,
  "apps webhooks remove": webhooks.appsWebhooksRemove,
  "apps webhooks enable": webhooks.appsWebhooksEnable,
  "apps webhooks disable": webhooks.appsWebhooksDisable,
  "apps webhooks rotate-secret": webhooks.appsWebhooksRotate,
  "apps webhooks test": webhooks.appsWebhooksTest,
  "apps webhooks deliveries": webhooks.appsWebhooksDeliveries,
  "apps webhooks backlog": webhooks.appsWebhooksBacklog,
  "apps webhooks redeliver": webhooks.appsWebhooksRedeliver,
  "events retention": events.eventsRetention,
  "users create": users.usersCreate,
  "users disable": users.usersDisable,
  "users enable": users.usersEnable,
  "users mute": users.usersMute,
  "users unmute": users.usersUnmute,
  "users apps": users.usersApps,
  "users revoke-app": users.usersRevokeApp,
  "users mfa": users.usersMfa,
  "users mfa reset": users.usersMfaReset,
  "users sessions": users.usersSessions,
  "users sign-out": users.usersSignOut,
  "keys rotate": keys.keysRotate,
  "secrets reseal": sealed.secretsReseal,
};

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    "Operator CLI of the developer platform.",
    "",
    "Usage: npm run platform -- <command> [options]",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    "",
    "Every command accepts --json (machine-readable output) and --help.",
    "Database: DATABASE_URL, or the embedded PostgreSQL under DATA_DIR (reused when `npm start` runs).",
    "Exit codes: 0 ok, 1 failed (unknown user or app, conflict, database), 2 bad usage.",
  ].join("\n");
}

function commandHelp(command: Command): string {
  return [`Usage: npm run platform -- ${command.usage}`, "", `${command.summary}.`, ...(command.helpDetails ?? [])].join("\n");
}

/** The running embedded PostgreSQL of `npm start`, if there is one on this data dir. */
async function connectToRunningEmbedded(config: Env): Promise<string | null> {
  let password: string;
  try {
    password = readFileSync(path.join(path.resolve(config.DATA_DIR), "pg-password"), "utf8").trim();
  } catch {
    return null;
  }
  const url = `postgresql://platform:${encodeURIComponent(password)}@127.0.0.1:${config.EMBEDDED_PG_PORT}/platform`;
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return url;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

async function openDatabase(config: Env): Promise<{ close(): Promise<void> }> {
  const { migrate } = await import("../lib/database/migrate");
  const { describeConnectionError, prepareDatabase } = await import("../lib/database/prepare");
  let url = config.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) url = (await connectToRunningEmbedded(config)) ?? undefined;
  if (url) {
    try {
      // Same rule as the server: apply pending migrations, never drop anything.
      // Over DATABASE_DIRECT_URL when DATABASE_URL is a pooler: the advisory lock needs a session.
      await migrate(config.DATABASE_DIRECT_URL ?? url);
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new Error(code ? describeConnectionError(error, url) : (error as Error).message.split("\n")[0]);
    }
  } else {
    const prepared = await prepareDatabase(config, (line) => process.stderr.write(`${line}\n`));
    url = prepared.url;
    stopEmbedded = () => prepared.embedded?.stop() ?? Promise.resolve();
  }
  process.env.DATABASE_URL = url;
  resetEnv();
  const { closeDb } = await import("../lib/database/client");
  return {
    async close() {
      await closeDb();
      await stopEmbedded?.();
    },
  };
}

const LEADING_FLAGS = new Set(["--json", "--help", "-h"]);

/** The command words (two to four: `apps sandbox secret roll`) come first (after --json/--help at most), so a flag value is never one. */
function commandWords(argv: string[]): { words: string[]; start: number } {
  let start = 0;
  while (start < argv.length && LEADING_FLAGS.has(argv[start]!)) start++;
  const words: string[] = [];
  for (let i = start; i < argv.length && words.length < 4 && !argv[i]!.startsWith("-"); i++) words.push(argv[i]!);
  return { words, start };
}

function findCommand(argv: string[]): { name: string; command: Command; rest: string[] } | null {
  const { words, start } = commandWords(argv);
  // The longest match wins: `apps secrets list X` before `apps approve X`.
  for (const count of [4, 3, 2]) {
    if (words.length < count) continue;
    const name = words.slice(0, count).join(" ");
    const command = COMMANDS[name];
    if (command) return { name, command, rest: [...argv.slice(0, start), ...argv.slice(start + count)] };
  }
  return null;
}

async function main(argv: string[]): Promise<number> {
  const wantsJson = argv.includes("--json");
  const fail = (code: number, error: string, message: string) => {
    const line = wantsJson ? JSON.stringify({ error: { code: error, message } }) : `Error: ${message}`;
    process.stderr.write(`${line}\n`);
    return code;
  };

  let config: Env;
  try {
    config = env();
  } catch (error) {
    if (error instanceof EnvError) return fail(1, "invalid_environment", error.message);
    throw error;
  }

  const found = findCommand(argv);
  if (!found) {
    if (argv.length === 0 || argv.every((a) => a === "--help" || a === "-h" || a === "help")) {
      process.stdout.write(`${help()}\n`);
      return 0;
    }
    const words = commandWords(argv).words.slice(0, 2).join(" ");
    return fail(2, "invalid_request", `unknown command "${words || argv.join(" ")}" (run with --help to list commands)`);
  }
  const { name, command, rest } = found;

  let values: Values;
  let args: string[];
  try {
    const options = { ...command.options, ...JSON_OPTION };
    const parsed = parseArgs({ args: attachDashedValues(rest, options), options, allowPositionals: true, strict: true });
    values = parsed.values as Values;
    args = parsed.positionals;
  } catch (error) {
    // parseArgs explains at length; keep what names the option.
    const message = (error as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(message);
    const short = unknown ? `unknown option ${unknown[1]} for ${name}` : message.split("\n")[0]!.replace(/\.$/, "");
    return fail(2, "invalid_request", `${short} (usage: ${command.usage})`);
  }
  if (values.help) {
    process.stdout.write(`${commandHelp(command)}\n`);
    return 0;
  }
  if (args.length !== command.positionals.length) {
    const expected = command.positionals.length ? command.positionals.join(" ") : "no arguments";
    return fail(2, "invalid_request", `${name} expects ${expected} (usage: ${command.usage})`);
  }

  let database;
  try {
    database = await openDatabase(config);
  } catch (error) {
    return fail(1, "service_unavailable", (error as Error).message.split("\n")[0]!);
  }
  try {
    const output = await command.run({ values, args });
    process.stdout.write(`${wantsJson || values.json ? JSON.stringify(output.json, null, 2) : output.text}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return fail(2, "invalid_request", error.message);
    const { isAppError } = await import("../lib/errors");
    if (isAppError(error) && error.extra?.reason === "changed_since_review" && (wantsJson || values.json)) {
      // A review decision on a revision that moved; the operator gets the current one.
      process.stderr.write(`${JSON.stringify({ error: "changed_since_review", revision: error.extra.revision, message: error.message })}\n`);
      return 1;
    }
    if (isAppError(error)) return fail(1, error.code, error.message);
    // Unknown failures: one line, no stack, and never a connection string (it holds a password).
    const first = String((error as Error).message ?? error).split("\n")[0]!.replace(/postgres(ql)?:\/\/\S+/g, "<database>");
    return fail(1, "internal_error", `${name} failed: ${first}`);
  } finally {
    await database.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
