#!/usr/bin/env node
/**
 * Starts the operator CLI (bin/platform.ts): `npm run platform -- <command>`, and the package's `bin`.
 *
 * The CLI runs as one bundle of its own TypeScript (esbuild; the packages stay in node_modules and
 * load as usual), kept in node_modules/.cache/platform-cli and made again when a file it was made
 * from changed (size or modification time) or esbuild's version did. Through tsx's loader every
 * one of the CLI's ~250 modules is resolved and compiled through a loader thread at each start:
 * about 1.2 s of CPU per command here, against 0.65 s for the bundle, and the bundle takes 60 ms to
 * make. Automation that runs hundreds of commands (and the test suite, 300 of them) feels that.
 *
 * Plain JavaScript on purpose: it must start without a TypeScript loader.
 */
import { build, version as esbuildVersion } from "esbuild";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.resolve(import.meta.dirname, "..");
const ENTRY = path.join(ROOT, "bin", "platform.ts");
/** PLATFORM_CLI_CACHE: another place for it, inside the checkout (the launcher's own test). */
const CACHE = process.env.PLATFORM_CLI_CACHE || path.join(ROOT, "node_modules", ".cache", "platform-cli");
const BUNDLE = path.join(CACHE, "platform.mjs");
const STAMPS = path.join(CACHE, "inputs.json");
/** Bumped when the way the bundle is made changes, so an old cache is not trusted. */
const RECIPE = 1;

/** `size:mtime` of a file, or null when it is gone. */
function stamp(file) {
  try {
    const s = statSync(path.join(ROOT, file));
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}

/** The cached bundle was made from the files as they are now, by this esbuild and recipe. */
function isCurrent() {
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(STAMPS, "utf8"));
    statSync(BUNDLE);
  } catch {
    return false;
  }
  if (recorded.recipe !== RECIPE || recorded.esbuild !== esbuildVersion) return false;
  return Object.entries(recorded.inputs).every(([file, was]) => stamp(file) === was);
}

/**
 * import.meta in a bundle is the bundle's; a module that finds files beside itself (the generated
 * Prisma client, the schema check) gets its own source location written in instead.
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

async function make() {
  const result = await build({
    entryPoints: [ENTRY],
    absWorkingDir: ROOT,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    packages: "external",
    write: false,
    metafile: true,
    logLevel: "silent",
    plugins: [ownImportMeta],
  });
  const inputs = Object.fromEntries(Object.keys(result.metafile.inputs).map((file) => [file, stamp(file)]));
  mkdirSync(CACHE, { recursive: true });
  // Written beside and renamed: two commands starting at once never read half a bundle.
  const partial = `${BUNDLE}.${process.pid}`;
  writeFileSync(partial, result.outputFiles[0].contents);
  renameSync(partial, BUNDLE);
  writeFileSync(`${STAMPS}.${process.pid}`, JSON.stringify({ recipe: RECIPE, esbuild: esbuildVersion, inputs }));
  renameSync(`${STAMPS}.${process.pid}`, STAMPS);
}

if (!isCurrent()) await make();
await import(pathToFileURL(BUNDLE).href);
