/**
 * What `npm start` runs: server.ts, from a bundle of our TypeScript (bin/bundled.mjs) kept in
 * node_modules/.cache/server and made again when a source changed. The start costs about half
 * the CPU it takes through tsx's loader, which every test server and every worker of a cluster pays
 * too. `npm run dev` runs server.ts through tsx.
 *
 * lib/server/node-env.ts runs first, on its own: it sets NODE_ENV before anything loads React,
 * and in one bundle the packages a module imports would load before any of its code ran.
 *
 * Plain JavaScript on purpose: it must start without a TypeScript loader.
 */
import path from "node:path";
import { bundledEntry, ensureBundle, ROOT } from "./bin/bundled.mjs";

const NODE_ENV_ENTRY = "lib/server/node-env.ts";
const ENTRY = "server.ts";
const dir = await ensureBundle({ cache: path.join(ROOT, "node_modules", ".cache", "server"), entries: [NODE_ENV_ENTRY, ENTRY], splitting: true });
await import(bundledEntry(dir, NODE_ENV_ENTRY));
await import(bundledEntry(dir, ENTRY));
