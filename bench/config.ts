import { parseArgs } from "node:util";
import { z } from "zod";

/** The default data set: a million users, chat messages and notifications. */
export const DEFAULT_SIZES = { users: 1_000_000, messages: 1_000_000, notifications: 1_000_000 } as const;

/**
 * `npm run bench -- [flags]`; every flag also has a BENCH_* environment variable (flags win).
 * This is the bench's only reader of process.env (the app's is lib/env.ts).
 */
const count = (fallback: number) => z.coerce.number().int().min(0).max(50_000_000).default(fallback);

const schema = z.object({
  users: count(DEFAULT_SIZES.users).refine((n) => n >= 10, "needs at least 10 users"),
  messages: count(DEFAULT_SIZES.messages),
  notifications: count(DEFAULT_SIZES.notifications),
  /**
   * Apps whose sandboxes (50 synthetic people and 300 chat messages each, built by the
   * product: bench/sandboxes.ts) are in the database before the cases; 0 leaves them out.
   */
  sandboxes: z.coerce.number().int().min(0).max(1000).default(100),
  /** Seconds measured per case. */
  duration: z.coerce.number().positive().max(600).default(10),
  /** Seconds of unmeasured load before each case. */
  warmup: z.coerce.number().min(0).max(60).default(2),
  connections: z.coerce.number().int().min(1).max(1000).default(50),
  /**
   * Users signed in through the real login flow. The chat case cycles through them, so its ceiling
   * is signedIn / 2 posts per second (one post per user per 2 s, SPEC Limits).
   */
  signedIn: z.coerce.number().int().min(1).max(100_000).default(4000),
  /** Seconds the sign-in phase may take at most; fewer users are signed in if it runs out. */
  signInBudget: z.coerce.number().positive().max(3600).default(240),
  /** Parallel sign-in flows while minting user tokens. */
  signInConcurrency: z.coerce.number().int().min(1).max(64).default(8),
  /** Serve Next too (production build, built if needed) — off: API and sign-in only. */
  next: z.enum(["auto", "on", "off"]).default("auto"),
  /**
   * Comma-separated case ids to run (A,B,C,4,4d,4on,4off,4w,5,5d,5m,5on,5off,5w,6a,6b,7a,7b,7c,7d,8a,8b,M,P,D,F,Fa,R,Rp,W,E,E100,E400; 4on/4off and 5on/5off
   * run on twin processes with METERING=on/off, 4w and 5w on one with WEB_CONCURRENCY=workers, M and P on
   * their own processes: the API mix direct, and through PgBouncer with a replica); default all.
   */
  only: z.string().optional(),
  /**
   * Workers of the extra WEB_CONCURRENCY process for cases 4w and 5w, whose scaling is
   * reported against the 1-process METERING=on twin (4on, 5on); 0 or 1 skips those cases.
   */
  workers: z.coerce.number().int().min(0).max(64).default(2),
  /**
   * Case E: chat posts per second while 10 webhook endpoints and 200 stream subscribers
   * receive each one (the target is stated at 200/s; lower it to see where a loaded machine stands).
   */
  eventsRate: z.coerce.number().positive().max(5000).default(200),
  /**
   * Case E again at these rates (cases E100, E400…), each alone, so the report shows latency
   * against load; "none" runs E at --events-rate only. Each rate needs 4 signed-in users per post/s.
   */
  eventsCurve: z
    .string()
    .default("100,400")
    .transform((list, context) => {
      if (list.trim() === "none") return [];
      const rates = list.split(",").map((r) => Number(r.trim()));
      if (rates.some((r) => !Number.isInteger(r) || r <= 0 || r > 5000)) {
        context.addIssue({ code: "custom", message: "a comma-separated list of whole posts/s (1 to 5000), or none" });
        return z.NEVER;
      }
      return rates;
    }),
  /**
   * The embedded database preloads pg_stat_statements for the statements and execution
   * time per request (the database columns); off leaves them out (CPU, transactions and WAL stay).
   */
  statementStats: z.enum(["on", "off"]).default("on"),
  /** Extra Node flags for the server process (space-separated), e.g. "--max-old-space-size=256". */
  serverNodeArgs: z.string().optional(),
  /** Run the server under `node --cpu-prof`, profiles written to this directory. */
  profile: z.string().optional(),
  /** Keep the temporary directory (embedded database, logs) after the run. */
  keep: z.boolean().default(false),
  /** Write results (bench/results/latest.*, docs/performance.md); off for experiments. */
  write: z.boolean().default(true),
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  logLevel: z.enum(["debug", "info", "warn", "error", "silent"]).optional(),
});

export type BenchConfig = z.infer<typeof schema>;

const FLAGS = {
  users: "BENCH_USERS",
  messages: "BENCH_MESSAGES",
  notifications: "BENCH_NOTIFICATIONS",
  sandboxes: "BENCH_SANDBOXES",
  duration: "BENCH_DURATION",
  warmup: "BENCH_WARMUP",
  connections: "BENCH_CONNECTIONS",
  "signed-in": "BENCH_SIGNED_IN",
  "sign-in-concurrency": "BENCH_SIGN_IN_CONCURRENCY",
  "sign-in-budget": "BENCH_SIGN_IN_BUDGET",
  next: "BENCH_NEXT",
  only: "BENCH_ONLY",
  workers: "BENCH_WORKERS",
  "events-rate": "BENCH_EVENTS_RATE",
  "events-curve": "BENCH_EVENTS_CURVE",
  "statement-stats": "BENCH_STATEMENT_STATS",
  profile: "BENCH_PROFILE",
  "server-node-args": "BENCH_SERVER_NODE_ARGS",
  "log-level": "BENCH_LOG_LEVEL",
} as const;

export const USAGE = `npm run bench -- [options]

  --users N              bench users to seed (default 1000000)       BENCH_USERS
  --messages N           chat messages to seed (default 1000000)     BENCH_MESSAGES
  --notifications N      notifications to seed (default 1000000)     BENCH_NOTIFICATIONS
  --sandboxes N          apps with built sandbox worlds (default 100; 0: none)  BENCH_SANDBOXES
  --duration S           seconds measured per case (default 10)      BENCH_DURATION
  --warmup S             unmeasured seconds before each (default 2)  BENCH_WARMUP
  --connections N        concurrent connections (default 50)         BENCH_CONNECTIONS
  --signed-in N          users signed in for user tokens (4000)      BENCH_SIGNED_IN
  --sign-in-concurrency N  parallel sign-in flows (default 8)        BENCH_SIGN_IN_CONCURRENCY
  --sign-in-budget S     at most S seconds signing users in (240)    BENCH_SIGN_IN_BUDGET
  --next auto|on|off     serve Next as production does (auto: build if needed, fall back to off if the build fails)
  --only A,B,4,…         run only these cases (results not written)  BENCH_ONLY
  --workers N            4w, 5w on N workers (default 2; 0/1: skip)  BENCH_WORKERS
  --events-rate N        case E's chat posts/s (default 200)         BENCH_EVENTS_RATE
  --events-curve N,N     case E again at these rates: E100, E400 (default 100,400; none)  BENCH_EVENTS_CURVE
  --statement-stats on|off  pg_stat_statements in the embedded database (default on)  BENCH_STATEMENT_STATS
  --profile DIR          run the server under node --cpu-prof        BENCH_PROFILE
  --server-node-args="…" extra Node flags for the server process    BENCH_SERVER_NODE_ARGS
  --log-level LEVEL      the server's LOG_LEVEL (default: the app's default)
  --keep                 keep the temporary directory (database, logs)
  --no-write             do not write bench/results or docs/performance.md

DATABASE_URL: benchmark against that PostgreSQL database (it must be empty or hold a previous bench
data set of the same sizes) instead of a temporary embedded one.`;

export function parseConfig(argv: string[], environment: NodeJS.ProcessEnv): BenchConfig | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...Object.fromEntries(Object.keys(FLAGS).map((k) => [k, { type: "string" as const }])),
      keep: { type: "boolean" },
      "no-write": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return "help";
  const raw: Record<string, unknown> = {};
  for (const [flag, variable] of Object.entries(FLAGS)) {
    const key = flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    const value = (values as Record<string, unknown>)[flag] ?? environment[variable];
    if (value !== undefined && value !== "") raw[key] = value;
  }
  raw.keep = Boolean(values.keep);
  raw.write = !values["no-write"];
  if (environment.DATABASE_URL) raw.databaseUrl = environment.DATABASE_URL;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Invalid option ${String(issue.path[0] ?? "")}: ${issue.message}`);
  }
  return parsed.data;
}
