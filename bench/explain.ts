/**
 * The plan of one of the app's own statements (lib/queries/*.ts), as the server runs it: the app
 * sends named statements, which PostgreSQL plans once per connection and, after five executions,
 * may replace with a generic plan. So the statement is prepared under its own name, executed six
 * times, then run once more under `EXPLAIN (ANALYZE, BUFFERS)`: the plan shown is the one a warm
 * pool connection uses, with its real row counts, buffer reads and time.
 */
import pg from "pg";

export interface Statement {
  name: string;
  text: string;
}

export interface QueryPlan {
  /** Case id (bench/run.ts) whose request runs this statement. */
  caseId: string;
  /** The statement's name in lib/queries and the values the request passes. */
  statement: string;
  values: (string | number)[];
  plan: string;
}

/** Executions before the plan cache may switch to a generic plan (PostgreSQL plancache.c). */
const CUSTOM_PLAN_TRIES = 5;

export async function explainStatement(
  databaseUrl: string,
  caseId: string,
  statement: Statement,
  values: (string | number)[],
): Promise<QueryPlan> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`PREPARE ${statement.name} AS ${statement.text}`);
    const execute = `EXECUTE ${statement.name}(${values.map((v) => client.escapeLiteral(String(v))).join(", ")})`;
    for (let i = 0; i <= CUSTOM_PLAN_TRIES; i++) await client.query(execute);
    const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${execute}`);
    return { caseId, statement: statement.name, values, plan: rows.map((r) => r["QUERY PLAN"]).join("\n") };
  } finally {
    await client.end();
  }
}
