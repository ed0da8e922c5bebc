/**
 * Runs an entry point of our TypeScript from a bundle kept in node_modules/.cache: the operator CLI
 * (bin/platform.mjs) and the server (server.mjs, what `npm start` runs).
 *
 * Why: through tsx's loader, every one of our modules is resolved and compiled through a loader
 * thread at each start, and the packages' modules go through that thread too. Measured here: the
 * CLI took 1.2 s of CPU per command from the sources against 0.65 s from a bundle; the server's
 * start (without Next) about 2.0 s, of which 0.7 s on tsx's thread. The bundle (esbuild) holds our
 * code only; the packages stay in node_modules and load as usual. It is made again when a file it
 * was made from changed (size or modification time) or esbuild's version or the recipe did, which
 * takes a fraction of a second.
 *
 * A bundle may be split (`splitting`): each `await import()` of our code becomes a chunk of its own,
 * so what a module loads late (Next, only when pages are served) still loads late. Every build then
 * goes to a directory of its own, named in `current.json`, written last and renamed into place: a
 * process starting during a build runs the previous one whole, and a running process keeps its own
 * directory: old ones are removed when a build finds them a week old (a server that ran that long on
 * sources changed meanwhile would lose the chunks it has not loaded yet; restart it after a change).
 *
 * Plain JavaScript on purpose: it must start without a TypeScript loader.
 */
import { build, version as esbuildVersion } from "esbuild";
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const ROOT = path.resolve(import.meta.dirname, "..");
/** How bundles are made: this file as it is now (an edit to it makes every bundle again). */
const SELF = path.relative(ROOT, import.meta.filename);
const RECIPE = `${SELF}@${stamp(SELF)}`;
const KEEP_OLD_BUILDS_MS = 7 * 24 * 60 * 60 * 1000;

/** `size:mtime` of a file, or null when it is gone. */
function stamp(file) {
  try {
    const s = statSync(path.join(ROOT, file));
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}

/**
 * import.meta in a bundle is the bundle's; a module that finds files beside itself (the generated
 * Prisma client, the schema check, the build) gets its own source location written in instead.
 */
const ownImportMeta = {
  name: "own-import-meta",
  setup(builder) {
    builder.onLoad({ filter: /\.tsx?$/ }, (args) => {
      // Every module is read here (esbuild would otherwise read it again); most have no import.meta to replace.
      const contents = readFileSync(args.path, "utf8")
        .replaceAll("import.meta.dirname", JSON.stringify(path.dirname(args.path)))
        .replaceAll("import.meta.filename", JSON.stringify(args.path))
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href));
      return { contents, loader: args.path.endsWith(".tsx") ? "tsx" : "ts" };
    });
  },
};

/**
 * A package's file named without its extension (`next/link`, `next/dist/server/…/get-cookie-parser`)
 * is found by tsx and by require(), but not by Node's import of a package without an `exports` map,
 * which takes the path as written: such imports are written with the file's own name (`next/link.js`).
 */
const packageFiles = {
  name: "package-files",
  setup(builder) {
    const require = createRequire(path.join(ROOT, "package.json"));
    const hasExports = new Map();
    builder.onResolve({ filter: /^(@[^/]+\/)?[^./@][^/]*\/[^:]+$/ }, (args) => {
      const [name] = /^(@[^/]+\/)?[^/]+/.exec(args.path);
      if (!hasExports.has(name)) {
        let manifest = null;
        try {
          manifest = JSON.parse(readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8"));
        } catch {
          // Not a package of ours (a workspace, a missing one): left as written.
        }
        hasExports.set(name, manifest === null || manifest.exports !== undefined);
      }
      if (hasExports.get(name) || path.extname(args.path)) return { path: args.path, external: true };
      const file = require.resolve(args.path);
      const within = path.relative(path.join(ROOT, "node_modules", name), file).split(path.sep).join("/");
      return { path: `${name}/${within}`, external: true };
    });
  },
};

/**
 * The bundle of `entries` (paths from the repository's root, each becoming `<its name>.mjs`) in
 * `cache`, made first when it is missing or stale; resolves with its directory.
 */
export async function ensureBundle({ cache, entries, splitting = false }) {
  const pointer = path.join(cache, "current.json");
  let current;
  try {
    current = JSON.parse(readFileSync(pointer, "utf8"));
  } catch {
    current = null;
  }
  if (
    current?.recipe === RECIPE &&
    current.esbuild === esbuildVersion &&
    JSON.stringify(current.entries) === JSON.stringify(entries) &&
    statSync(path.join(cache, current.dir), { throwIfNoEntry: false }) &&
    Object.entries(current.inputs).every(([file, was]) => stamp(file) === was)
  ) {
    return path.join(cache, current.dir);
  }
  const dir = `build-${Date.now()}-${process.pid}`;
  const result = await build({
    entryPoints: entries.map((entry) => path.join(ROOT, entry)),
    absWorkingDir: ROOT,
    bundle: true,
    splitting,
    platform: "node",
    format: "esm",
    target: "node22",
    jsx: "automatic",
    packages: "external",
    outdir: path.join(cache, dir),
    outExtension: { ".js": ".mjs" },
    entryNames: "[name]",
    chunkNames: "chunk-[hash]",
    metafile: true,
    logLevel: "silent",
    plugins: [ownImportMeta, packageFiles],
  });
  const inputs = Object.fromEntries(Object.keys(result.metafile.inputs).map((file) => [file, stamp(file)]));
  const partial = `${pointer}.${process.pid}`;
  writeFileSync(partial, JSON.stringify({ recipe: RECIPE, esbuild: esbuildVersion, entries, dir, inputs }));
  renameSync(partial, pointer);
  for (const old of readdirSync(cache)) {
    if (!old.startsWith("build-") || old === dir) continue;
    const at = statSync(path.join(cache, old), { throwIfNoEntry: false });
    if (at && Date.now() - at.mtimeMs > KEEP_OLD_BUILDS_MS) rmSync(path.join(cache, old), { recursive: true, force: true });
  }
  return path.join(cache, dir);
}

/** The file URL of entry `entry`'s module in bundle directory `dir`. */
export function bundledEntry(dir, entry) {
  return pathToFileURL(path.join(dir, `${path.basename(entry, path.extname(entry))}.mjs`)).href;
}
