#!/usr/bin/env node
/**
 * Starts the operator CLI (bin/platform.ts): `npm run platform -- <command>`, and the package's `bin`.
 *
 * The CLI runs from a bundle of its own TypeScript (bin/bundled.mjs), kept in
 * node_modules/.cache/platform-cli: about 0.65 s of CPU per command here against 1.2 s through
 * tsx's loader. Automation that runs hundreds of commands (and the test suite, 300 of them) feels that.
 *
 * Plain JavaScript on purpose: it must start without a TypeScript loader.
 */
import path from "node:path";
import { bundledEntry, ensureBundle, ROOT } from "./bundled.mjs";

/** PLATFORM_CLI_CACHE: another place for it, inside the checkout (the launcher's own test). */
const cache = process.env.PLATFORM_CLI_CACHE || path.join(ROOT, "node_modules", ".cache", "platform-cli");
const ENTRY = "bin/platform.ts";
await import(bundledEntry(await ensureBundle({ cache, entries: [ENTRY] }), ENTRY));
