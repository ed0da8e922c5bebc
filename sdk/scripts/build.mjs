// `npm run build` (and `prepack`): the package's two builds, from the same sources.
// - dist/esm: ES modules with declarations (tsconfig.json), for `import`;
// - dist/cjs: CommonJS with declarations (tsconfig.cjs.json), for `require`; its package.json says
//   "commonjs" so Node and TypeScript read those files as CommonJS whatever the package's "type" is.
// openid-client is ESM only: the CommonJS build require()s it, which Node 20.19+ does natively.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
rmSync(path.join(root, "dist"), { recursive: true, force: true });
for (const project of ["tsconfig.json", "tsconfig.cjs.json"]) {
  execFileSync(process.execPath, [tsc, "-p", path.join(root, project)], { stdio: "inherit", cwd: root });
}
mkdirSync(path.join(root, "dist", "cjs"), { recursive: true });
writeFileSync(path.join(root, "dist", "cjs", "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
