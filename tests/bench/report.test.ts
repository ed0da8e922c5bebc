import { describe, expect, it } from "vitest";
import { buildRatiosAndTargets, capacityTable, expectedChat, toConsoleTable, toMarkdown, type BenchReport, type CaseResult } from "../../bench/report";

/**
 * The bench report's database columns (statements, execution time, CPU, WAL per request)
 * and the ratio of case P (API mix, 2 processes through PgBouncer with a replica) to case M (1
 * process straight to the database), next to the existing columns and targets.
 */
function load(okRps: number, requests: number) {
  return {
    duration: 10,
    requests,
    ok: requests,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    rps: okRps,
    okRps,
    latency: { p50: 5, p90: 8, p99: 12, max: 20, mean: 6 },
    statusCounts: { "200": requests },
  };
}

const cases: CaseResult[] = [
  { id: "5", name: "GET /users/{username}", status: "ok", load: load(9000, 90_000), serverCpuMsPerRequest: 0.05, peakRssMb: 240 },
  {
    id: "M",
    name: "API mix, 1 process",
    status: "ok",
    load: load(2000, 20_000),
    serverCpuMsPerRequest: 0.3,
    database: { queries: 0.9, execMs: 0.131, cpuMs: 0.5, transactions: 1.07, walBytes: 412 },
  },
  {
    id: "P",
    name: "API mix, PgBouncer + replica",
    status: "ok",
    load: load(1500, 15_000),
    serverCpuMsPerRequest: 0.6,
    database: { queries: 1.3, execMs: 0.163, cpuMs: 0.9, transactions: 1.51 },
  },
  { id: "8b", name: "POST /users/{handle}/poke", status: "unavailable", reason: "no users left to poke" },
];

function report(): BenchReport {
  const { ratios, targets } = buildRatiosAndTargets(cases, 250, 2, 2, null);
  return {
    date: "2026-11-27T07:00:00.000Z",
    machine: { cores: 2, cpu: "test", memoryGb: 24, node: "v20", platform: "linux" },
    config: { users: 1000, messages: 1000, notifications: 1000, duration: 10, warmup: 2, connections: 50, signedIn: 100, next: false, database: "embedded" },
    setup: { seedSeconds: 1, seedReused: false, signInSeconds: 1, totalSeconds: 10 },
    cases,
    ratios,
    targets,
    peakRssMb: 250,
    notes: [],
  };
}

describe("bench report, issue 30", () => {
  it("gives P / M in 2xx/s with both processes' and databases' CPU per request", () => {
    const ratio = report().ratios.find((r) => r.name.includes("P / M"));
    expect(ratio?.value).toBeCloseTo(0.75, 5);
    expect(ratio?.detail).toBe("1,500 vs 2,000 2xx/s; server CPU 0.600 vs 0.300 ms/request; database CPU 0.900 vs 0.500 ms/request");
  });

  it("says the ratio was not measured when either case is missing", () => {
    const { ratios } = buildRatiosAndTargets(cases.filter((c) => c.id !== "M"), 250, 2, 2, null);
    const ratio = ratios.find((r) => r.name.includes("P / M"));
    expect(ratio).toMatchObject({ value: null, detail: "not measured (needs cases P and M)" });
  });

  it("adds the database columns to the Markdown table, every row as wide as the header", () => {
    const lines = toMarkdown(report()).split("\n");
    const header = lines.find((l) => l.startsWith("| # | Case"))!;
    expect(header).toContain("| server CPU ms/req | DB queries/req | DB time ms/req | DB CPU ms/req | WAL B/req | peak RSS MB | notes |");
    const cells = (line: string) => line.split(" | ").length;
    const table = lines.slice(lines.indexOf(header), lines.indexOf("", lines.indexOf(header)));
    const rows = table.filter((l) => /^\| (5|M|P|8b) \|/.test(l));
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(cells(row)).toBe(cells(header));
    const separator = lines[lines.indexOf(header) + 1]!;
    expect(separator.split("|").length).toBe(header.split("|").length);
    expect(rows.find((r) => r.startsWith("| M |"))).toContain("| 0.30 | 0.90 | 0.131 | 0.50 | 412 | – |");
    // P's WAL was not read (absent), the baseline-like case 5 has no database figures at all.
    expect(rows.find((r) => r.startsWith("| P |"))).toContain("| 0.60 | 1.30 | 0.163 | 0.90 | – | – |");
    expect(rows.find((r) => r.startsWith("| 5 |"))).toContain("| 0.05 | – | – | – | – | 240 |");
  });

  it("shows statements and database CPU per request on the console", () => {
    const table = toConsoleTable(report());
    expect(table.split("\n")[0]).toMatch(/CPU ms\/req\s+DB q\/req\s+DB CPU ms\/req\s+RSS MB/);
    expect(table).toMatch(/^M .* 0\.30\s+0\.90\s+0\.50\s+–$/m);
  });

  it("derives the capacity figures from both sides' CPU per request", () => {
    const lines = capacityTable(cases);
    // Only the cases with app and database CPU: M and P, not case 5 (no database figures) nor 8b.
    expect(lines.filter((l) => /^\| [0-9A-Z]+ \|/.test(l)).map((l) => l.split(" | ")[0])).toEqual(["| M", "| P"]);
    // M: 1,000 ÷ 0.5 ms = 2,000 req/s per database core, 1,000 ÷ 0.3 ms = 3,333 per app core, 0.3 ÷ 0.5 = 0.6 app cores per database core, 412 B × 1,000 = 0.41 MB/s.
    expect(lines.find((l) => l.startsWith("| M |"))).toBe("| M | API mix, 1 process | 0.90 | 0.500 | 2,000 | 0.300 | 3,333 | 0.60 | 0.41 |");
    expect(lines.find((l) => l.startsWith("| P |"))).toBe("| P | API mix, PgBouncer + replica | 1.30 | 0.900 | 1,111 | 0.600 | 1,667 | 0.67 | – |");
    expect(toMarkdown(report())).toContain(lines.join("\n"));
    expect(capacityTable(cases.filter((c) => !c.database))).toEqual([]);
  });
});

describe("chat posts against the committed run (issue 25), host-adjusted", () => {
  const committed = { date: "2026-11-24T22:36:00.000Z", okRps: 1453, baselines: { A: 88_063, B: 12_309 } };
  const run = (chat: number, a?: number, b?: number): CaseResult[] => [
    { id: "8a", name: "POST /global-chat/messages", status: "ok", load: load(chat, chat * 10) },
    ...(a ? [{ id: "A", name: "Baseline A", status: "ok" as const, load: load(a, a * 10) }] : []),
    ...(b ? [{ id: "B", name: "Baseline B", status: "ok" as const, load: load(b, b * 10) }] : []),
  ];
  const target = (cases: CaseResult[]) => buildRatiosAndTargets(cases, 250, 2, 2, committed).targets.find((t) => t.name.startsWith("Chat posts vs"))!;

  it("scales the committed run by the baseline that expects the most of this host", () => {
    // A here is 83% of then, B 65%: the committed 1,453/s × 0.83 is what this host owes.
    expect(expectedChat(committed, run(1204, 73_088, 8_036))).toMatchObject({ baseline: "A", factor: 73_088 / 88_063 });
    const met = target(run(1204, 73_088, 8_036));
    expect(met.pass).toBe(true);
    expect(met.measured).toContain("baseline A");
    expect(met.measured).toContain("raw 82.9%");
    // The same posts on a host whose baselines match the committed run's: 83%, not met.
    expect(target(run(1204, 88_063, 12_309)).pass).toBe(false);
    // A faster host owes more than the committed run.
    expect(target(run(1500, 100_000, 12_309)).pass).toBe(true); // 1,500 of 1,650
    expect(target(run(1453, 100_000, 12_309)).pass).toBe(false); // the committed figure itself is 88% of it
  });

  it("compares the raw numbers, and says so, when no baseline ran with 8a", () => {
    const raw = target(run(1204));
    expect(raw.pass).toBe(false);
    expect(raw.measured).toContain("not host-adjusted");
    expect(target(run(1400)).pass).toBe(true);
  });
});
