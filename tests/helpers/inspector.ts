import WebSocket from "ws";

/**
 * A Chrome DevTools Protocol session with a Node process started with `--inspect=127.0.0.1:0`
 * (its "Debugger listening on ws://…" line gives the address). The soak uses it to force a full
 * garbage collection in the server and read its memory afterwards: what survives a full GC is
 * what leaks.
 */
export interface InspectorSession {
  /** Full GC, then `process.memoryUsage()` of the inspected process (bytes). */
  memoryAfterGc(): Promise<NodeJS.MemoryUsage>;
  close(): void;
}

export function inspectorUrl(logs: readonly string[]): string {
  const line = logs.find((l) => l.includes("Debugger listening on ws://"));
  if (!line) throw new Error("the process printed no inspector address: start it with --inspect=127.0.0.1:0");
  return /ws:\/\/\S+/.exec(line)![0];
}

export async function openInspector(url: string): Promise<InspectorSession> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id!);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  });
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    async memoryAfterGc() {
      await call("HeapProfiler.collectGarbage");
      const result = (await call("Runtime.evaluate", { expression: "JSON.stringify(process.memoryUsage())", returnByValue: true })) as {
        result: { value: string };
      };
      return JSON.parse(result.result.value) as NodeJS.MemoryUsage;
    },
    close() {
      socket.close();
    },
  };
}
