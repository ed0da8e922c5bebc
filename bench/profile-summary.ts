/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by function and by package, and
 * inclusive time of the functions that match an optional filter.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [--top 25] [--match <substring>] [--window FROM,TO]
 *
 * --window keeps the samples between FROM and TO seconds after the profile started; `npm run bench
 * -- --profile DIR` prints each case's window, so one profile of a whole run can be read per case.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const file = args[0];
if (!file) {
  process.stderr.write("usage: tsx bench/profile-summary.ts <file.cpuprofile> [--top N] [--match text]\n");
  process.exit(1);
}
const top = Number(args[args.indexOf("--top") + 1] || 25) || 25;
const match = args.includes("--match") ? args[args.indexOf("--match") + 1] : undefined;
const windowArg = args.includes("--window") ? args[args.indexOf("--window") + 1] : undefined;
const [from, to] = windowArg ? windowArg.split(",").map((v) => Number(v) * 1e6) : [-Infinity, Infinity];

const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
if (windowArg) {
  // Sample times are startTime + the running sum of timeDeltas (microseconds).
  const samples: number[] = [];
  const deltas: number[] = [];
  let t = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    if (t >= from! && t <= to!) {
      samples.push(id);
      deltas.push(profile.timeDeltas[i] ?? 0);
    }
  });
  profile.samples = samples;
  profile.timeDeltas = deltas;
}
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

function where(n: ProfileNode): string {
  const url = n.callFrame.url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  if (url.startsWith("node:")) return url;
  if (!url) return n.callFrame.functionName.startsWith("(") ? n.callFrame.functionName : "(native)";
  return url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "");
}

function label(n: ProfileNode): string {
  const fn = n.callFrame.functionName || "(anonymous)";
  return `${fn} ${where(n)}:${n.callFrame.lineNumber + 1}`;
}

function ms(us: number): string {
  return `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%`;
}

function printTop(title: string, map: Map<string, number>): void {
  process.stdout.write(`\n${title}\n`);
  for (const [k, v] of [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${ms(v)}  ${k}\n`);
  }
}

const selfByFunction = new Map<string, number>();
const selfByPackage = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  selfByFunction.set(label(n), (selfByFunction.get(label(n)) ?? 0) + t);
  selfByPackage.set(where(n), (selfByPackage.get(where(n)) ?? 0) + t);
}
process.stdout.write(`${file}: ${(total / 1000).toFixed(0)} ms sampled\n`);
printTop("Self time by package/file", selfByPackage);
printTop("Self time by function", selfByFunction);

if (match) {
  // Inclusive time: each sample counts once for every distinct matching frame on its stack.
  const inclusive = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!;
      const key = label(n);
      if (!seen.has(key) && key.includes(match)) {
        seen.add(key);
        inclusive.set(key, (inclusive.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
      }
    }
  });
  printTop(`Inclusive time of frames matching "${match}"`, inclusive);
}
