import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { sendBytes, sendJson } from "../http/reply";
import { logger } from "../logger";

/**
 * The platform serves the tarball of its own SDK (sdk/), so a developer anywhere installs
 * it with `npm install {APP_URL}/sdk/latest.tgz`. The tarball is `npm pack` of sdk/ (its `prepack`
 * builds the ESM and CommonJS outputs), kept in `.sdk-package/` beside a fingerprint of the SDK's
 * sources: made by `npm run build` (or `npm run sdk:pack`), in the background by a production start,
 * or else on the first download; again whenever the sources changed. A lock shared by every process
 * in this checkout (servers, tests, the build) makes one pack at a time.
 */
const SDK_INPUTS = ["package.json", "README.md", "tsconfig.json", "tsconfig.cjs.json", "scripts", "src"];

export interface SdkTarball {
  /** e.g. social-dev-platform-sdk-0.2.0.tgz (npm pack's name for @social-dev-platform/sdk@0.2.0). */
  name: string;
  version: string;
  file: string;
}

export function sdkPackageDir(root = process.cwd()): string {
  return path.join(root, ".sdk-package");
}

export function sdkVersion(root: string): string {
  return (JSON.parse(readFileSync(path.join(root, "sdk", "package.json"), "utf8")) as { version: string }).version;
}

export function sdkTarballName(version: string): string {
  return `social-dev-platform-sdk-${version}.tgz`;
}

/**
 * SHA-256 over the SDK's inputs' paths and contents (a few hundred KB: milliseconds).
 * `withoutVersion` leaves package.json's `version` out: what a version is built from, which
 * scripts/sdk-versions.ts records per version.
 */
export function sdkFingerprint(root = process.cwd(), options: { withoutVersion?: boolean } = {}): string {
  const hash = createHash("sha256");
  const manifest = path.join(root, "sdk", "package.json");
  const visit = (entry: string) => {
    if (!existsSync(entry)) return;
    if (statSync(entry).isDirectory()) {
      for (const name of readdirSync(entry).sort()) visit(path.join(entry, name));
      return;
    }
    hash.update(`${path.relative(root, entry)}\n`);
    if (options.withoutVersion && entry === manifest) {
      const pkg = JSON.parse(readFileSync(entry, "utf8")) as Record<string, unknown>;
      delete pkg.version;
      hash.update(JSON.stringify(pkg));
    } else hash.update(readFileSync(entry));
  };
  for (const input of SDK_INPUTS) visit(path.join(root, "sdk", input));
  return hash.digest("hex");
}

function currentTarball(root: string): SdkTarball | null {
  const dir = sdkPackageDir(root);
  const version = sdkVersion(root);
  const file = path.join(dir, sdkTarballName(version));
  const marker = path.join(dir, "FINGERPRINT");
  if (!existsSync(file) || !existsSync(marker) || readFileSync(marker, "utf8") !== sdkFingerprint(root)) return null;
  return { name: sdkTarballName(version), version, file };
}

/** `npm pack` of sdk/ into a fresh directory, then moved into `.sdk-package/` with its fingerprint. */
async function packSdk(root: string, log: (line: string) => void): Promise<void> {
  const fingerprint = sdkFingerprint(root);
  const dir = sdkPackageDir(root);
  mkdirSync(dir, { recursive: true });
  const out = mkdtempSync(path.join(dir, "pack-"));
  log("Packing the SDK (npm pack in sdk/: builds its ESM and CommonJS outputs)…");
  // npm itself: the one that runs this process when there is one (`npm start`), else npm on the PATH.
  const npmCli = process.env.npm_execpath;
  const [command, args] = npmCli && /npm-cli\.js$/.test(npmCli) ? [process.execPath, [npmCli]] : ["npm", [] as string[]];
  try {
    const output: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const child = spawn(command, [...args, "pack", "--pack-destination", out, "--silent"], {
        cwd: path.join(root, "sdk"),
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false" },
      });
      child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
      child.on("error", reject);
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`npm pack in sdk/ failed with exit code ${code}:\n${output.join("").slice(-2000)}`))));
    });
    const packed = readdirSync(out).find((name) => name.endsWith(".tgz"));
    if (!packed) throw new Error("npm pack in sdk/ wrote no tarball");
    for (const old of readdirSync(dir)) if (old.endsWith(".tgz")) rmSync(path.join(dir, old), { force: true });
    renameSync(path.join(out, packed), path.join(dir, packed));
    writeFileSync(path.join(dir, "FINGERPRINT"), fingerprint);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The current tarball, packed first when there is none or the SDK's sources changed (under the checkout's lock). */
export async function ensureSdkTarball(root = process.cwd(), log: (line: string) => void = () => {}): Promise<SdkTarball> {
  const lock = `${sdkPackageDir(root)}.lock`;
  for (;;) {
    const current = currentTarball(root);
    if (current) return current;
    try {
      mkdirSync(lock);
    } catch {
      const held = existsSync(lock) ? statSync(lock) : null;
      if (held && Date.now() - held.mtimeMs > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (!currentTarball(root)) await packSdk(root, log);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** `/sdk/latest.tgz` and `/sdk/social-dev-platform-sdk-<version>.tgz`. */
export const SDK_TARBALL_PATH = /^\/sdk\/(latest|social-dev-platform-sdk-[0-9A-Za-z.+-]+)\.tgz$/;

/**
 * Serves the SDK's tarball: the versioned name as immutable (a new SDK is a new version), and
 * latest.tgz with a five-minute cache, so a redeployed platform hands out its new SDK soon. Both
 * carry the tarball's SHA-256 as their ETag. The tarball is read once per process and kept.
 */
export function sdkTarballServer(root: string, log: (line: string) => void) {
  let loaded: Promise<{ tarball: SdkTarball; bytes: Buffer; etag: string }> | undefined;
  const load = () => {
    loaded ??= ensureSdkTarball(root, log).then((tarball) => {
      const bytes = readFileSync(tarball.file);
      return { tarball, bytes, etag: `"${createHash("sha256").update(bytes).digest("hex")}"` };
    });
    loaded.catch(() => {
      loaded = undefined; // a failed pack is tried again on the next request
    });
    return loaded;
  };
  return {
    /** Packs (or finds) the tarball now, so the first download does not wait for it. */
    prepare(): Promise<unknown> {
      return load();
    },
    async serve(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
      if (req.method !== "GET" && req.method !== "HEAD") {
        sendJson(res, 405, { error: { code: "method_not_allowed", message: "GET or HEAD only." } }, { allow: "GET, HEAD" });
        return;
      }
      let current;
      try {
        current = await load();
      } catch (error) {
        logger.error("SDK tarball unavailable", { error: (error as Error).message });
        sendJson(res, 503, { error: { code: "service_unavailable", message: "The SDK package is not available right now. Retry shortly." } }, { "retry-after": 30 });
        return;
      }
      const { tarball, bytes, etag } = current;
      const latest = name === "latest";
      if (!latest && `${name}.tgz` !== tarball.name) {
        sendJson(res, 404, { error: { code: "not_found", message: `This platform serves ${tarball.name} (also as /sdk/latest.tgz).` } });
        return;
      }
      const headers = {
        "content-type": "application/gzip",
        "content-disposition": `attachment; filename="${tarball.name}"`,
        "cache-control": latest ? "public, max-age=300" : "public, max-age=31536000, immutable",
        etag,
        "x-sdk-version": tarball.version,
      };
      if (req.headers["if-none-match"] === etag) {
        sendBytes(res, 304, headers, null);
        return;
      }
      sendBytes(res, 200, req.method === "HEAD" ? { ...headers, "content-length": bytes.length } : headers, req.method === "HEAD" ? null : bytes);
    },
  };
}
