import { readFile } from "node:fs/promises";
import pg from "pg";
import { readTreeCpuSeconds } from "./processes";

/**
 * What the database spends on a case. Read around each measured round by the load
 * generator (bench/load-worker.ts), like the app's CPU, so a case's figures are its own in an
 * interleaved group:
 *
 * - CPU of every PostgreSQL process of each server (the postmaster, its live backends and
 *   background processes, plus the time of the backends it already reaped: readTreeCpuSeconds),
 *   found from a backend's parent pid, so it works for a local DATABASE_URL too;
 * - statements executed and their execution time from pg_stat_statements (top-level statements
 *   of the bench database), when the server loaded it (the embedded bench database does);
 * - transactions (xact_commit + xact_rollback of pg_stat_database), which PostgreSQL publishes
 *   up to a second late, so they are a cross-check rather than the count.
 */
/** The embedded bench database's (and case P's replica's) settings for pg_stat_statements. */
export const STATEMENT_STATS_SETTINGS = { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track": "top" };

/**
 * The meter's own statements, which read pg_stat_statements or pg_stat_database, are not the
 * case's. Only those: the app's event statements read pg_stat_activity (the event horizon,
 * lib/events/worker.ts), and an earlier filter on every pg_stat_ view left out the webhook fan-out
 * and the event stream's reads.
 */
const NOT_THE_METERS = `query !~ 'pg_stat_(statements|database)'`;

export interface DatabaseCounters {
  /** CPU seconds of all the servers' processes; undefined when a server's processes cannot be read (not local). */
  cpuSeconds?: number;
  /** Top-level statements executed in the bench database (pg_stat_statements). */
  statements?: number;
  /** Their execution time, ms (pg_stat_statements total_exec_time: planning not included). */
  execMs?: number;
  transactions: number;
  /** WAL the primary wrote (bytes, pg_current_wal_lsn): what the writes cost in disk and replication. */
  walBytes?: number;
}

/** One server (primary or replica) the scenario's requests reach. */
export interface DatabaseTarget {
  url: string;
}

interface Open {
  client: pg.Client;
  postmaster?: number;
  statements: boolean;
}

async function parentPid(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** The postmaster of the server at `url` (a backend's parent), when it runs on this machine. */
export async function postmasterPid(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const parent = await parentPid(rows[0]!.pid);
    return parent && parent > 1 ? parent : undefined;
  } finally {
    await client.end();
  }
}

export class DatabaseMeter {
  private constructor(private readonly servers: Open[]) {}

  /** One session per server, kept open across the rounds (a new one would fork a backend, charged to the case). */
  static async open(targets: DatabaseTarget[]): Promise<DatabaseMeter> {
    const servers: Open[] = [];
    for (const target of targets) {
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      const { rows } = await client.query<{ pid: number; statements: boolean }>(
        `SELECT pg_backend_pid() AS pid,
                EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements')
                  AND current_setting('shared_preload_libraries') ~ 'pg_stat_statements' AS statements`,
      );
      const postmaster = await parentPid(rows[0]!.pid);
      servers.push({ client, statements: rows[0]!.statements, ...(postmaster && postmaster > 1 ? { postmaster } : {}) });
    }
    return new DatabaseMeter(servers);
  }

  async read(): Promise<DatabaseCounters> {
    let cpu: number | undefined = 0;
    let statements: number | undefined = 0;
    let execMs: number | undefined = 0;
    let transactions = 0;
    let walBytes: number | undefined;
    for (const server of this.servers) {
      const tree = server.postmaster ? await readTreeCpuSeconds(server.postmaster) : undefined;
      cpu = tree && cpu !== undefined ? cpu + tree.total : undefined;
      const { rows } = await server.client.query<{ xacts: string; wal: string | null }>(
        `SELECT xact_commit + xact_rollback AS xacts,
                CASE WHEN NOT pg_is_in_recovery() THEN pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') END AS wal
         FROM pg_stat_database WHERE datname = current_database()`,
      );
      transactions += Number(rows[0]?.xacts ?? 0);
      if (rows[0]?.wal !== null && rows[0]?.wal !== undefined) walBytes = (walBytes ?? 0) + Number(rows[0].wal);
      if (server.statements && statements !== undefined && execMs !== undefined) {
        // The meter's own statements are left out; the app's are all in this database.
        const { rows: s } = await server.client.query<{ calls: string | null; ms: number | null }>(
          `SELECT sum(calls) AS calls, sum(total_exec_time) AS ms FROM pg_stat_statements
           WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ${NOT_THE_METERS}`,
        );
        statements += Number(s[0]?.calls ?? 0);
        execMs += Number(s[0]?.ms ?? 0);
      } else {
        statements = execMs = undefined;
      }
    }
    return {
      ...(cpu !== undefined ? { cpuSeconds: cpu } : {}),
      ...(statements !== undefined ? { statements, execMs } : {}),
      transactions,
      ...(walBytes !== undefined ? { walBytes } : {}),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.client.end().catch(() => {})));
  }
}

const OPTIONAL_FIELDS = ["cpuSeconds", "statements", "execMs", "walBytes"] as const;

/** `op` field by field; a field missing from either side is missing from the result. */
function combine(a: DatabaseCounters, b: DatabaseCounters, op: (x: number, y: number) => number): DatabaseCounters {
  const out: DatabaseCounters = { transactions: op(a.transactions, b.transactions) };
  for (const field of OPTIONAL_FIELDS) {
    const x = a[field];
    const y = b[field];
    if (x !== undefined && y !== undefined) out[field] = op(x, y);
  }
  return out;
}

/** after − before, field by field. */
export function counterDelta(before: DatabaseCounters, after: DatabaseCounters): DatabaseCounters {
  return combine(after, before, (x, y) => x - y);
}

/** Sums of deltas (a field missing from any is missing from the sum). */
export function addCounters(a: DatabaseCounters | undefined, b: DatabaseCounters): DatabaseCounters {
  return a ? combine(a, b, (x, y) => x + y) : b;
}

/** One statement's share of a case (pg_stat_statements, by query id). */
export interface StatementShare {
  query: string;
  calls: number;
  /** Execution time, ms (planning not included). */
  ms: number;
  rows: number;
  walBytes: number;
}

/**
 * The bench database's top-level statements by query id, with their counters so far: read before
 * and after a case, `statementDelta` gives what each statement cost it. Empty when the server did
 * not load pg_stat_statements.
 */
export async function readStatements(url: string): Promise<Map<string, StatementShare>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; query: string; calls: string; ms: number; rows: string; wal: string }>(
      `SELECT queryid::text AS id, query, calls, total_exec_time AS ms, rows, wal_bytes AS wal FROM pg_stat_statements
       WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ${NOT_THE_METERS}`,
    );
    return new Map(rows.map((r) => [r.id, { query: r.query, calls: Number(r.calls), ms: r.ms, rows: Number(r.rows), walBytes: Number(r.wal) }]));
  } catch {
    return new Map();
  } finally {
    await client.end();
  }
}

/** What each statement cost between two readings, the costliest (execution time) first. */
export function statementDelta(before: Map<string, StatementShare>, after: Map<string, StatementShare>): StatementShare[] {
  const out: StatementShare[] = [];
  for (const [id, a] of after) {
    const b = before.get(id);
    const share = { query: a.query, calls: a.calls - (b?.calls ?? 0), ms: a.ms - (b?.ms ?? 0), rows: a.rows - (b?.rows ?? 0), walBytes: a.walBytes - (b?.walBytes ?? 0) };
    if (share.calls > 0) out.push(share);
  }
  return out.sort((x, y) => y.ms - x.ms);
}
