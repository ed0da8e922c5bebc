import type net from "node:net";

/**
 * The HTTP/1.1 exchange of a webhook attempt: one request written whole to a kept-alive
 * connection, one answer read. A webhook attempt is a POST with a small body and an answer of which
 * only the status and the first bytes matter, to receivers that answer thousands of times a minute;
 * node:http's ClientRequest, IncomingMessage and Agent cost ~35 µs of CPU an exchange on Node 24,
 * this ~12 µs (same socket work, no stream objects per request). The checks that make an attempt
 * safe (addresses, ports, the deadline, sent once) stay in deliver-http.ts; this only speaks the
 * protocol (RFC 9112) and keeps connections.
 *
 * Strict where the answer decides whether the connection can be used again: the status line must
 * parse and a Content-Length be one valid number (else the attempt fails); a framing it cannot
 * trust for another answer (no Content-Length and not chunked, Transfer-Encoding other than chunked,
 * HTTP/1.0, `Connection: close`, bytes after the answer) still gives the answer, but the connection
 * goes. Interim answers (1xx) are skipped.
 * Limits: 16 KiB of head (Node's default --max-http-header-size), 1 KiB per chunk-size line; past
 * them the exchange fails and the connection goes.
 */

/** What the attempt does with the answer as it arrives. */
export interface Http1Sink {
  /** The final answer's status code (interim 1xx answers skipped). */
  status(code: number): void;
  /** Body bytes as they arrive; false: enough was read (the connection goes). */
  body(chunk: Buffer): boolean;
  /** The answer is complete. */
  end(): void;
  /**
   * No complete answer: the connection failed or closed first. `unsent`: none of the request left
   * this process (a kept connection the receiver had closed).
   */
  fail(error: Error, unsent: boolean): void;
}

/** Where connections go: one pool per key; `connect` opens a new one (checked addresses only). */
export interface Http1Origin {
  key: string;
  connect(): net.Socket;
}

export interface Http1Exchange {
  /** Ends the exchange and its connection (the deadline): nothing more reaches the sink. */
  abort(): void;
}

const MAX_HEAD_BYTES = 16 * 1024;
const MAX_CHUNK_LINE = 1024;
/** Idle connections close after 4 s, before Node servers' 5 s keep-alive, so a receiver rarely closes one under us. */
const IDLE_MS = 4_000;
const MAX_IDLE_PER_ORIGIN = 64;
const KEEP_ALIVE_PROBE_MS = 1_000;

const idle = new Map<string, Connection[]>();

type Stage = "head" | "length" | "chunk-size" | "chunk-data" | "chunk-end" | "trailers" | "close";

function protocolError(message: string): Error {
  return Object.assign(new Error(message), { code: "HPE_INVALID" });
}

class Connection implements Http1Exchange {
  private sink: Http1Sink | null = null;
  private writtenBefore = 0;
  private pending: Buffer | null = null;
  private stage: Stage = "head";
  private left = 0;
  private reusable = true;
  private answered = false;
  /** Served an exchange before: a failure before any answer may be a close that crossed our request. */
  used = false;

  constructor(
    readonly socket: net.Socket,
    readonly key: string,
  ) {
    socket.setNoDelay(true);
    socket.setKeepAlive(true, KEEP_ALIVE_PROBE_MS);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("end", () => this.onEnd());
    socket.on("error", (error: Error) => this.onClosed(error));
    socket.on("close", () => this.onClosed(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })));
    socket.on("timeout", () => this.socket.destroy());
  }

  isAlive(): boolean {
    return !this.socket.destroyed && this.socket.readable && this.socket.writable;
  }

  start(request: Buffer, sink: Http1Sink): void {
    this.sink = sink;
    this.stage = "head";
    this.pending = null;
    this.reusable = true;
    this.answered = false;
    this.socket.setTimeout(0);
    this.socket.ref();
    this.writtenBefore = this.socket.bytesWritten;
    this.socket.write(request);
  }

  abort(): void {
    this.sink = null;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (!this.sink) {
      // Bytes nobody asked for (on an idle connection, or after an answer): it cannot be trusted again.
      this.socket.destroy();
      return;
    }
    let buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    try {
      buf = this.parse(buf);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    if (buf.length) this.pending = buf;
  }

  /** Consumes what it can of `buf`; returns the rest (a partial head or line). */
  private parse(input: Buffer): Buffer {
    let buf = input;
    while (this.sink && buf.length) {
      switch (this.stage) {
        case "head": {
          const end = buf.indexOf("\r\n\r\n");
          if (end < 0) {
            if (buf.length > MAX_HEAD_BYTES) throw protocolError("answer head too large");
            return buf;
          }
          if (end > MAX_HEAD_BYTES) throw protocolError("answer head too large");
          const head = buf.toString("latin1", 0, end);
          buf = buf.subarray(end + 4);
          this.readHead(head);
          if ((this.stage as Stage) === "length" && this.left === 0) {
            // No body (204, 304, a zero length): the answer ends with its head.
            this.complete(buf);
            return Buffer.alloc(0);
          }
          break;
        }
        case "length": {
          const take = Math.min(this.left, buf.length);
          const part = buf.subarray(0, take);
          buf = buf.subarray(take);
          this.left -= take;
          if (!this.deliver(part)) return Buffer.alloc(0);
          if (this.left === 0) {
            this.complete(buf);
            return Buffer.alloc(0);
          }
          break;
        }
        case "close":
          if (!this.deliver(buf)) return Buffer.alloc(0);
          return Buffer.alloc(0);
        case "chunk-size": {
          const eol = buf.indexOf("\r\n");
          if (eol < 0) {
            if (buf.length > MAX_CHUNK_LINE) throw protocolError("chunk size line too long");
            return buf;
          }
          const line = buf.toString("latin1", 0, eol);
          buf = buf.subarray(eol + 2);
          const match = /^([0-9A-Fa-f]{1,8})[\t ]*(;.*)?$/.exec(line);
          if (!match) throw protocolError("invalid chunk size");
          this.left = parseInt(match[1]!, 16);
          this.stage = this.left === 0 ? "trailers" : "chunk-data";
          break;
        }
        case "chunk-data": {
          const take = Math.min(this.left, buf.length);
          const part = buf.subarray(0, take);
          buf = buf.subarray(take);
          this.left -= take;
          if (!this.deliver(part)) return Buffer.alloc(0);
          if (this.left === 0) this.stage = "chunk-end";
          break;
        }
        case "chunk-end": {
          if (buf.length < 2) return buf;
          if (buf[0] !== 13 || buf[1] !== 10) throw protocolError("chunk not followed by CRLF");
          buf = buf.subarray(2);
          this.stage = "chunk-size";
          break;
        }
        case "trailers": {
          const eol = buf.indexOf("\r\n");
          if (eol < 0) {
            if (buf.length > MAX_HEAD_BYTES) throw protocolError("trailers too large");
            return buf;
          }
          buf = buf.subarray(eol + 2);
          if (eol === 0) {
            this.complete(buf);
            return Buffer.alloc(0);
          }
          break;
        }
      }
    }
    return buf;
  }

  private readHead(head: string): void {
    const firstEnd = head.indexOf("\r\n");
    const status = /^HTTP\/1\.([01]) ([0-9]{3})(?: .*)?$/.exec(firstEnd < 0 ? head : head.slice(0, firstEnd));
    if (!status) throw protocolError("invalid status line");
    const code = Number(status[2]);
    // RFC 9110 §15.2: interim answers come before the final one (101 would switch protocols: never asked for).
    if (code >= 100 && code < 200 && code !== 101) return;
    if (status[1] === "0") this.reusable = false;
    let length: number | null = null;
    let chunked = false;
    // Line by line without splitting: only the framing fields (Content-Length, Transfer-Encoding,
    // Connection, all starting with c or t) are read.
    for (let start = firstEnd < 0 ? head.length : firstEnd + 2; start < head.length; ) {
      let end = head.indexOf("\r\n", start);
      if (end < 0) end = head.length;
      const colon = head.indexOf(":", start);
      if (colon <= start || colon > end) throw protocolError("invalid header line");
      const first = head.charCodeAt(start) | 0x20;
      if (first === 0x63 /* c */ || first === 0x74 /* t */) {
        const name = head.slice(start, colon).trim().toLowerCase();
        if (name === "content-length") {
          const value = head.slice(colon + 1, end).trim();
          // RFC 9112 §6.3: an invalid length makes the framing unknowable; the answer is discarded.
          if (!/^[0-9]{1,15}$/.test(value) || (length !== null && length !== Number(value))) throw protocolError("invalid Content-Length");
          length = Number(value);
        } else if (name === "transfer-encoding") {
          const codings = head.slice(colon + 1, end).toLowerCase().split(",").map((c) => c.trim());
          if (codings.at(-1) === "chunked" && codings.length === 1) chunked = true;
          else this.reusable = false;
        } else if (name === "connection") {
          if (head.slice(colon + 1, end).toLowerCase().split(",").some((c) => c.trim() === "close")) this.reusable = false;
        }
      }
      start = end + 2;
    }
    this.answered = true;
    // RFC 9112 §6.3: no body for 1xx, 204 and 304; chunked wins over a length (which makes the connection suspect).
    if (code === 204 || code === 304 || code === 101) {
      if (code === 101) this.reusable = false;
      this.stage = "length";
      this.left = 0;
    } else if (chunked) {
      if (length !== null) this.reusable = false;
      this.stage = "chunk-size";
    } else if (length !== null) {
      this.stage = "length";
      this.left = length;
    } else {
      this.reusable = false;
      this.stage = "close";
    }
    this.sink!.status(code);
  }

  private deliver(part: Buffer): boolean {
    if (!part.length || !this.sink) return this.sink !== null;
    if (this.sink.body(part)) return true;
    // Enough read: the rest of the answer is not read, so the connection cannot serve another.
    this.abort();
    return false;
  }

  /** The answer ended; `rest`: bytes after it, which make the connection untrustworthy. */
  private complete(rest: Buffer): void {
    const sink = this.sink;
    if (!sink) return;
    this.sink = null;
    this.used = true;
    if (this.reusable && !rest.length && this.isAlive()) this.release();
    else this.socket.destroy();
    sink.end();
  }

  private release(): void {
    let list = idle.get(this.key);
    if (!list) idle.set(this.key, (list = []));
    if (list.length >= MAX_IDLE_PER_ORIGIN) {
      this.socket.destroy();
      return;
    }
    this.socket.setTimeout(IDLE_MS);
    this.socket.unref();
    list.push(this);
  }

  private onEnd(): void {
    // A close-delimited answer ends with the connection.
    if (this.sink && this.stage === "close" && this.answered) {
      this.reusable = false;
      this.complete(Buffer.alloc(0));
      return;
    }
    this.onClosed(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
  }

  private onClosed(error: Error): void {
    this.forget();
    if (!this.socket.destroyed) this.socket.destroy();
    if (this.sink) this.fail(error);
  }

  private fail(error: Error): void {
    const sink = this.sink;
    if (!sink) return;
    this.sink = null;
    this.forget();
    this.socket.destroy();
    sink.fail(error, this.used && !this.answered && this.socket.bytesWritten === this.writtenBefore);
  }

  /** Out of the idle pool (it closed, or failed). */
  private forget(): void {
    const list = idle.get(this.key);
    const at = list ? list.indexOf(this) : -1;
    if (at >= 0) {
      list!.splice(at, 1);
      if (!list!.length) idle.delete(this.key);
    }
  }
}

/**
 * Sends `request` (the whole request, head and body) on an idle connection of `origin` (the most
 * recently used), or on a new one when `fresh` or none is idle, and reads the answer into `sink`.
 */
export function http1Exchange(origin: Http1Origin, request: Buffer, sink: Http1Sink, fresh = false): Http1Exchange {
  let conn: Connection | undefined;
  if (!fresh) {
    const list = idle.get(origin.key);
    while (list?.length) {
      const candidate = list.pop()!;
      if (candidate.isAlive()) {
        conn = candidate;
        break;
      }
      candidate.socket.destroy();
    }
    if (list && !list.length) idle.delete(origin.key);
  }
  conn ??= new Connection(origin.connect(), origin.key);
  conn.start(request, sink);
  return conn;
}
