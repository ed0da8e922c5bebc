import { spawnSync } from "node:child_process";
import { appendFile, chown, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { findFreePort, startEmbeddedPostgres, type EmbeddedDatabase } from "../../lib/database/embedded";

/**
 * A primary and a real streaming replica from the embedded PostgreSQL binaries, which
 * have no pg_basebackup: the primary (wal_level=replica, initdb's replication lines in pg_hba.conf)
 * reserves WAL in a physical slot; its data directory is copied between `pg_backup_start()` and
 * `pg_backup_stop()`, without pg_wal's contents and postmaster.pid; the stop's label file becomes
 * backup_label; standby.signal, primary_conninfo (with the password) and the slot go into the copy,
 * which starts on another port as a hot standby and streams.
 */
export interface StreamingPair {
  primary: EmbeddedDatabase;
  replica: EmbeddedDatabase;
  /** Stops the replica (fast shutdown) and resolves once it exited. */
  stopReplica(): Promise<void>;
  stop(): Promise<void>;
}

const SLOT = "platform_test_replica";

async function clusterDirOf(dir: string): Promise<string> {
  return path.join(dir, "pg");
}

/** `chown` like `reference` (as root the cluster belongs to the postgres system user). */
async function ownLike(file: string, reference: string): Promise<void> {
  const owner = await stat(reference);
  if (process.getuid?.() === 0) await chown(file, owner.uid, owner.gid);
}

/**
 * A streaming replica of `primary` (an embedded PostgreSQL whose cluster is in `primaryDir`/pg), in
 * `replicaDir`: once it returns, the primary lists it as streaming. The bench's case P
 * makes one of its seeded database this way. `settings` are passed to the replica's server as to
 * the primary's (the bench's pg_stat_statements).
 */
export async function startReplicaOf(
  primary: EmbeddedDatabase,
  primaryDir: string,
  replicaDir: string,
  options: { slot?: string; settings?: Record<string, string> } = {},
): Promise<EmbeddedDatabase> {
  const slot = options.slot ?? SLOT;
  const primaryCluster = await clusterDirOf(primaryDir);
  const hba = path.join(primaryCluster, "pg_hba.conf");
  if (!/^host\s+replication\s+all\s+127\.0\.0\.1\/32/m.test(await readFile(hba, "utf8"))) {
    await appendFile(hba, "\nhost replication all 127.0.0.1/32 scram-sha-256\n");
  }
  const admin = new pg.Client({ connectionString: primary.serverUrl });
  await admin.connect();
  try {
    await admin.query("SELECT pg_reload_conf()");
    const { rows } = await admin.query<{ wal_level: string }>("SHOW wal_level");
    if (rows[0]!.wal_level === "minimal") throw new Error("the primary's wal_level is minimal: no streaming replica possible");
    await admin.query("SELECT pg_create_physical_replication_slot($1, true)", [slot]);
    await admin.query("SELECT pg_backup_start('platform-test-replica', true)");
    const replicaCluster = await clusterDirOf(replicaDir);
    const copy = spawnSync("cp", ["-a", primaryCluster, replicaCluster]);
    if (copy.status !== 0) throw new Error(`copying the data directory failed: ${copy.stderr.toString()}`);
    await rm(path.join(replicaCluster, "postmaster.pid"), { force: true });
    await rm(path.join(replicaCluster, "postmaster.opts"), { force: true });
    for (const entry of await readdir(path.join(replicaCluster, "pg_wal"))) {
      if (entry === "archive_status") continue;
      await rm(path.join(replicaCluster, "pg_wal", entry), { recursive: true, force: true });
    }
    for (const entry of await readdir(path.join(replicaCluster, "pg_wal", "archive_status"))) {
      await rm(path.join(replicaCluster, "pg_wal", "archive_status", entry), { force: true });
    }
    const { rows: stopped } = await admin.query<{ labelfile: string }>("SELECT labelfile FROM pg_backup_stop(false)");
    const password = (await readFile(path.join(primaryDir, "pg-password"), "utf8")).trim();
    await writeFile(path.join(replicaDir, "pg-password"), password, { mode: 0o600 });
    const files: [string, string][] = [
      ["backup_label", stopped[0]!.labelfile],
      ["standby.signal", ""],
    ];
    for (const [name, content] of files) {
      await writeFile(path.join(replicaCluster, name), content, { mode: 0o600 });
      await ownLike(path.join(replicaCluster, name), replicaCluster);
    }
    const primaryPort = new URL(primary.serverUrl).port;
    const conninfo = `host=127.0.0.1 port=${primaryPort} user=platform password=${password} application_name=${slot}`;
    await appendFile(
      path.join(replicaCluster, "postgresql.auto.conf"),
      `\nprimary_conninfo = '${conninfo.replace(/'/g, "''")}'\nprimary_slot_name = '${slot}'\n`,
    );
  } finally {
    await admin.end();
  }
  const replica = await startEmbeddedPostgres({ dir: replicaDir, port: await findFreePort(), ...(options.settings ? { settings: options.settings } : {}) });
  // Streaming once the primary lists the standby's WAL sender as streaming.
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      const client = new pg.Client({ connectionString: primary.serverUrl });
      await client.connect();
      const { rows } = await client.query<{ state: string }>("SELECT state FROM pg_stat_replication WHERE application_name = $1", [slot]);
      await client.end();
      if (rows[0]?.state === "streaming") break;
      if (Date.now() > deadline) throw new Error("the replica did not start streaming within 30 s");
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (error) {
    await replica.stop();
    throw error;
  }
  return replica;
}

export async function startStreamingPair(): Promise<StreamingPair> {
  const primaryDir = await mkdtemp(path.join(os.tmpdir(), "platform-primary-"));
  const replicaDir = await mkdtemp(path.join(os.tmpdir(), "platform-replica-"));
  let primary: EmbeddedDatabase | undefined;
  let replica: EmbeddedDatabase | undefined;
  const stop = async () => {
    await replica?.stop().catch(() => {});
    await primary?.stop().catch(() => {});
    await rm(primaryDir, { recursive: true, force: true });
    await rm(replicaDir, { recursive: true, force: true });
  };
  try {
    primary = await startEmbeddedPostgres({ dir: primaryDir, port: await findFreePort() });
    replica = await startReplicaOf(primary, primaryDir, replicaDir);
  } catch (error) {
    await stop();
    throw error;
  }
  const started = { primary: primary!, replica: replica! };
  return {
    ...started,
    stopReplica: () => started.replica.stop(),
    stop,
  };
}
