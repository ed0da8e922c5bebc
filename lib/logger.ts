import { env } from "./env";

/**
 * JSON lines on stdout/stderr. Never pass secrets here: fields named like secrets are redacted as a
 * second line of defence, but callers must not log tokens, passwords or client secrets at all.
 */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;
const SECRET_KEY = /pass(word)?|secret|token|authorization|cookie|code_verifier|^code$|hash/i;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, SECRET_KEY.test(k) ? "[redacted]" : v]));
}

function threshold(): number {
  try {
    return LEVELS[env().LOG_LEVEL];
  } catch {
    return LEVELS.info;
  }
}

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (LEVELS[level] < threshold()) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...redact(fields) });
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(line + "\n");
}

export const logger = {
  debug: (m: string, f?: Record<string, unknown>) => write("debug", m, f),
  info: (m: string, f?: Record<string, unknown>) => write("info", m, f),
  warn: (m: string, f?: Record<string, unknown>) => write("warn", m, f),
  error: (m: string, f?: Record<string, unknown>) => write("error", m, f),
};
