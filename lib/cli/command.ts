import type { ParseArgsConfig } from "node:util";
import type { z } from "zod";

/**
 * What every command of the operator CLI shares (bin/platform.ts dispatches; one file per command
 * group beside this one). Arguments are parsed with node:util parseArgs and validated with the same
 * zod schemas as the portal; the work is done by lib/services, so the CLI cannot disagree with it.
 */

export type Options = NonNullable<ParseArgsConfig["options"]>;
export type Values = Record<string, string | boolean | string[] | undefined>;

/** Bad usage: exit code 2 with `invalid_request`, where anything else that fails exits 1. */
export class UsageError extends Error {}

export interface Command {
  usage: string;
  summary: string;
  options: Options;
  /** Number of positional arguments after the command words. */
  positionals: string[];
  /** Lines that `--help` prints after the summary. */
  helpDetails?: string[];
  run(ctx: Context): Promise<Output>;
}

export interface Context {
  values: Values;
  args: string[];
}

export interface Output {
  json: unknown;
  text: string;
}

export const JSON_OPTION: Options = { json: { type: "boolean" }, help: { type: "boolean", short: "h" } };

/**
 * `--name VALUE` becomes `--name=VALUE` when the option takes a value and VALUE starts with "-" (a
 * session id or a secret may): parseArgs refuses such a value as ambiguous, though it cannot be an
 * option unless it names one. A VALUE that is one of the command's options stays as it is, so a
 * missing value is still an error.
 */
export function attachDashedValues(args: string[], options: Options): string[] {
  const known = new Set<string>();
  for (const [name, option] of Object.entries(options)) {
    known.add(`--${name}`);
    if (option.short) known.add(`-${option.short}`);
  }
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      out.push(...args.slice(i));
      break;
    }
    const next = args[i + 1];
    const option = arg.startsWith("--") && !arg.includes("=") ? options[arg.slice(2)] : undefined;
    if (option?.type === "string" && next !== undefined && next.startsWith("-") && next !== "--" && !known.has(next.split("=")[0]!)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/**
 * The services and schemas, imported only when a command runs: `--help` and usage errors answer
 * without loading them, and they load after bin/platform.ts parsed the environment and chose the
 * database (it sets DATABASE_URL before any command runs).
 */
export async function services() {
  const [apps, review, secrets, users, connectedApps, members, actor, schemas, userSchemas, usage, usageSchemas, agents] = await Promise.all([
    import("../services/apps"),
    import("../services/app-review"),
    import("../services/app-secrets"),
    import("../services/users"),
    import("../services/connected-apps"),
    import("../services/app-members"),
    import("../services/actor"),
    import("../schemas/apps"),
    import("../schemas/users"),
    import("../services/usage"),
    import("../schemas/usage"),
    import("../services/agents"),
  ]);
  return {
    apps: { ...apps, ...review },
    secrets,
    users,
    connectedApps,
    members,
    actor: actor.CLI_ACTOR,
    schemas,
    userSchemas,
    usage,
    usageSchemas,
    agents,
  };
}

/** First zod issue as one line, naming the flag rather than the internal field. */
function zodLine(error: z.ZodError, flags: Record<string, string>): string {
  const issue = error.issues[0]!;
  const field = String(issue.path[0] ?? "");
  const flag = flags[field] ?? (field ? `--${field}` : "argument");
  return `${flag}: ${issue.message}`;
}

export function parseWith<T extends z.ZodType>(schema: T, input: unknown, flags: Record<string, string>): z.infer<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new UsageError(zodLine(result.error, flags));
  return result.data;
}

/** A repeatable option's values (none given: an empty list). */
export const list = (v: unknown) => (Array.isArray(v) ? (v as string[]) : []);
