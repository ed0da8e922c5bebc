/**
 * A small strict parser of Prometheus's text exposition format (version 0.0.4), for tests: what a
 * scraper would refuse, this throws on. Checks the grammar of every line (names, label sets and
 * their escapes, values), that a family's TYPE comes once and before its samples, that its samples
 * are contiguous and named as its type allows (a histogram's _bucket/_sum/_count), that no series
 * repeats, and that each histogram's buckets are cumulative and end in +Inf equal to its _count.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  help: string | undefined;
  samples: Sample[];
}

export interface Exposition {
  families: Map<string, Family>;
  /** `name{labels}` exactly as written → value. */
  values: Map<string, number>;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

/** A value as Prometheus reads it (Go's strconv.ParseFloat: Inf and NaN in any case). */
function parseValue(text: string, line: number): number {
  const lower = text.toLowerCase();
  if (lower === "+inf" || lower === "inf") return Infinity;
  if (lower === "-inf") return -Infinity;
  if (lower === "nan") return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`line ${line}: bad value ${JSON.stringify(text)}`);
  return Number(text);
}

/** Parses `{a="x",b="y"}` starting at `text[0] === "{"`; returns the labels and the rest. */
function parseLabels(text: string, line: number): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1;
  for (;;) {
    if (text[i] === "}") return { labels, rest: text.slice(i + 1) };
    const eq = text.indexOf("=", i);
    if (eq < 0) throw new Error(`line ${line}: unterminated label set`);
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`line ${line}: bad label name ${JSON.stringify(name)}`);
    if (name in labels) throw new Error(`line ${line}: label ${name} repeated`);
    if (text[eq + 1] !== '"') throw new Error(`line ${line}: label value must be quoted`);
    let value = "";
    let j = eq + 2;
    for (;;) {
      const c = text[j];
      if (c === undefined) throw new Error(`line ${line}: unterminated label value`);
      if (c === '"') break;
      if (c === "\\") {
        const next = text[j + 1];
        if (next === "\\") value += "\\";
        else if (next === '"') value += '"';
        else if (next === "n") value += "\n";
        else throw new Error(`line ${line}: bad escape \\${next}`);
        j += 2;
      } else {
        value += c;
        j++;
      }
    }
    labels[name] = value;
    i = j + 1;
    if (text[i] === ",") i++;
    else if (text[i] !== "}") throw new Error(`line ${line}: expected , or } after a label`);
  }
}

/** The family a sample name belongs to, given the families declared so far. */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(name);
  if (direct) return direct.type === "histogram" ? undefined : direct;
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!name.endsWith(suffix)) continue;
    const family = families.get(name.slice(0, -suffix.length));
    if (family?.type === "histogram") return family;
    if (family?.type === "summary" && suffix !== "_bucket") return family;
  }
  return undefined;
}

export function parsePrometheusText(text: string): Exposition {
  if (text.length && !text.endsWith("\n")) throw new Error("the exposition must end with a newline");
  const families = new Map<string, Family>();
  const values = new Map<string, number>();
  const seen = new Set<string>();
  const closed = new Set<string>();
  let current: Family | undefined;
  const lines = text.split("\n");
  lines.pop();
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw === "") return;
    if (raw.startsWith("#")) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (!match) return; // a plain comment
      const [, kind, name, rest] = match as unknown as [string, "HELP" | "TYPE", string, string];
      if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: bad metric name ${JSON.stringify(name)}`);
      let family = families.get(name);
      if (family && closed.has(name)) throw new Error(`line ${line}: ${name} declared after its samples ended`);
      if (!family) {
        family = { name, type: "untyped", help: undefined, samples: [] };
        families.set(name, family);
      }
      if (current && current !== family) closed.add(current.name);
      current = family;
      if (kind === "HELP") {
        if (family.help !== undefined) throw new Error(`line ${line}: second HELP for ${name}`);
        family.help = rest;
      } else {
        if (!TYPES.has(rest)) throw new Error(`line ${line}: unknown type ${JSON.stringify(rest)}`);
        if (family.samples.length) throw new Error(`line ${line}: TYPE of ${name} after its samples`);
        family.type = rest as Family["type"];
      }
      return;
    }
    const nameEnd = raw.search(/[{ ]/);
    if (nameEnd <= 0) throw new Error(`line ${line}: not a sample: ${JSON.stringify(raw)}`);
    const name = raw.slice(0, nameEnd);
    if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: bad metric name ${JSON.stringify(name)}`);
    let labels: Record<string, string> = {};
    let rest = raw.slice(nameEnd);
    if (rest.startsWith("{")) ({ labels, rest } = parseLabels(rest, line));
    const parts = rest.split(" ");
    if (parts[0] !== "" || parts.length < 2 || parts.length > 3) throw new Error(`line ${line}: expected " value [timestamp]"`);
    const value = parseValue(parts[1]!, line);
    if (parts[2] !== undefined && !/^-?\d+$/.test(parts[2])) throw new Error(`line ${line}: bad timestamp`);
    let family = familyOf(name, families);
    if (!family) {
      if (families.has(name)) throw new Error(`line ${line}: ${name} is a histogram: samples are _bucket, _sum, _count`);
      family = { name, type: "untyped", help: undefined, samples: [] };
      families.set(name, family);
    }
    if (closed.has(family.name)) throw new Error(`line ${line}: samples of ${family.name} are not contiguous`);
    if (current && current !== family) closed.add(current.name);
    current = family;
    if (family.type === "histogram" && name.endsWith("_bucket") && !("le" in labels)) throw new Error(`line ${line}: bucket without le`);
    const key = raw.slice(0, raw.length - rest.length);
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(series)) throw new Error(`line ${line}: series repeated: ${key}`);
    seen.add(series);
    values.set(key, value);
    family.samples.push({ name, labels, value });
  });
  // Histograms: per label set (le aside), cumulative buckets ending in +Inf == _count.
  for (const family of families.values()) {
    if (family.type !== "histogram") continue;
    const groups = new Map<string, { buckets: [number, number][]; count?: number }>();
    for (const sample of family.samples) {
      const { le, ...others } = sample.labels;
      const id = JSON.stringify(Object.entries(others).sort());
      const group = groups.get(id) ?? { buckets: [] };
      groups.set(id, group);
      if (sample.name.endsWith("_bucket")) group.buckets.push([parseValue(le!, 0), sample.value]);
      if (sample.name.endsWith("_count")) group.count = sample.value;
    }
    for (const [id, group] of groups) {
      const last = group.buckets.at(-1);
      if (!last || last[0] !== Infinity) throw new Error(`${family.name}${id}: no +Inf bucket`);
      for (let i = 1; i < group.buckets.length; i++) {
        if (group.buckets[i]![0] <= group.buckets[i - 1]![0]) throw new Error(`${family.name}${id}: buckets out of order`);
        if (group.buckets[i]![1] < group.buckets[i - 1]![1]) throw new Error(`${family.name}${id}: buckets not cumulative`);
      }
      if (group.count !== last[1]) throw new Error(`${family.name}${id}: +Inf bucket ${last[1]} ≠ _count ${group.count}`);
    }
  }
  return { families, values };
}

/** `name{labels}` → value, after checking the whole text strictly. */
export function parseMetrics(text: string): Map<string, number> {
  return parsePrometheusText(text).values;
}

/** The value of one series (labels in any order), or undefined. */
export function sampleValue(exposition: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  for (const family of exposition.families.values()) {
    for (const sample of family.samples) {
      if (sample.name === name && JSON.stringify(Object.entries(sample.labels).sort()) === wanted) return sample.value;
    }
  }
  return undefined;
}
