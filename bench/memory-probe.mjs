/**
 * Loaded into the server under test with `--server-node-args="--import ./bench/memory-probe.mjs"`
 * (point 4): what holds the memory. Every second one `memory {json}` line on stderr —
 * RSS, V8 heap spaces, external and array buffers — and on SIGUSR2 a heap snapshot in the working
 * directory (open it in Chrome DevTools → Memory). Measurement only; never loaded in production.
 */
import v8 from "node:v8";

const mb = (n) => Math.round((n / 1048576) * 10) / 10;

const timer = setInterval(() => {
  const usage = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, mb(s.space_size)]));
  process.stderr.write(
    `memory ${JSON.stringify({ t: Math.round(process.uptime()), rss: mb(usage.rss), heapTotal: mb(usage.heapTotal), heapUsed: mb(usage.heapUsed), external: mb(usage.external), arrayBuffers: mb(usage.arrayBuffers), spaces })}\n`,
  );
}, 1000);
timer.unref();

process.on("SIGUSR2", () => {
  const file = v8.writeHeapSnapshot();
  process.stderr.write(`heap snapshot written: ${file}\n`);
});
