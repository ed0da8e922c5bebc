import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * `npm start` builds first when there is no production build, or when the sources changed since
 * the last one (a fingerprint of the sources' paths, sizes and mtimes).
 */
const SOURCE_ROOTS = ["app", "pages", "components", "lib", "public", "proxy.ts", "next.config.ts", "package-lock.json", "postcss.config.mjs"];
const SKIP = new Set(["node_modules", "generated", ".next"]);

function walk(entry: string, out: string[]): void {
  if (!existsSync(entry)) return;
  const stat = statSync(entry);
  if (stat.isDirectory()) {
    for (const name of readdirSync(entry).sort()) if (!SKIP.has(name)) walk(path.join(entry, name), out);
  } else {
    out.push(`${entry}:${stat.size}:${Math.floor(stat.mtimeMs)}`);
  }
}

export function sourceFingerprint(root = process.cwd()): string {
  const lines: string[] = [];
  for (const r of SOURCE_ROOTS) walk(path.join(root, r), lines);
  return createHash("sha256").update(lines.join("\n")).digest("hex");
}

export function distDir(root = process.cwd()): string {
  return path.join(root, ".next");
}

export function isBuildCurrent(root = process.cwd()): boolean {
  const marker = path.join(distDir(root), "SOURCE_FINGERPRINT");
  if (!existsSync(path.join(distDir(root), "BUILD_ID")) || !existsSync(marker)) return false;
  return readFileSync(marker, "utf8") === sourceFingerprint(root);
}

export async function buildNext(root = process.cwd(), log: (line: string) => void = console.log): Promise<void> {
  const fingerprint = sourceFingerprint(root);
  log("Building the web app (next build); this takes a minute or two the first time…");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`next build failed with exit code ${code}`))));
  });
  writeFileSync(path.join(distDir(root), "SOURCE_FINGERPRINT"), fingerprint);
}

/**
 * Makes Next take its configuration from the build instead of next.config.ts: loading a
 * TypeScript config transpiles it with Next's native SWC binding, ~24 MB of RSS at every start.
 * `next build` serializes the resolved config into .next/required-server-files.json,
 * and Next's own standalone server (its generated server.js) passes that to Next through
 * `__NEXT_PRIVATE_STANDALONE_CONFIG`, which loadConfig then returns as is (next/dist/server/config.js).
 * Production only: `next dev` reads next.config.ts as usual.
 */
export function applyBuiltNextConfig(root = process.cwd()): void {
  const file = path.join(distDir(root), "required-server-files.json");
  const { config } = JSON.parse(readFileSync(file, "utf8")) as { config?: Record<string, unknown> };
  if (!config || typeof config !== "object") throw new Error(`${file} holds no config: run next build again`);
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(config);
}

/**
 * Builds when the build is not current, under a lock shared by every builder in this checkout
 * (`npm start`, the test helpers, the bench), so two `next build`s never write `.next` at once.
 * A lock older than 10 minutes is taken as stale. With `once`, one build is enough even if the
 * sources changed while it ran (a checkout being edited); otherwise it builds until current.
 */
export async function ensureNextBuild(
  root = process.cwd(),
  log: (line: string) => void = () => {},
  options: { once?: boolean } = {},
): Promise<void> {
  const lock = path.join(root, ".next-build.lock");
  let built = false;
  for (;;) {
    if ((options.once && built) || isBuildCurrent(root)) return;
    try {
      mkdirSync(lock);
    } catch {
      const held = existsSync(lock) ? statSync(lock) : null;
      if (held && Date.now() - held.mtimeMs > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    try {
      if (!isBuildCurrent(root)) await buildNext(root, log);
      built = true;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
