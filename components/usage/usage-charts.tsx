import { AxisBottom, AxisLeft } from "@visx/axis";
import { Group } from "@visx/group";
import { scaleBand, scaleLinear } from "@visx/scale";
import { BarStack, LinePath } from "@visx/shape";
import { Fragment, type ReactNode } from "react";

/**
 * The Usage tab's charts, drawn by @visx on the server (no client JavaScript). Each SVG is
 * an image with a title and a description, and its numbers are also in a table below it (a
 * disclosure), so screen-reader and keyboard users get the same data. The SVGs scale with their box
 * (viewBox), so they never widen the page on a phone.
 */

export interface ChartPoint {
  /** ISO time of the slot start. */
  at: string;
  "2xx": number;
  "4xx": number;
  "5xx": number;
  p50Ms: number | null;
  p95Ms: number | null;
}

const MARGIN = { top: 12, right: 16, bottom: 30, left: 52 };

/**
 * Each chart is drawn twice, for a phone and for wider screens, and CSS shows one: an SVG scales
 * with its box, so one drawing for both would leave its labels unreadably small on a phone.
 */
interface Size {
  key: "narrow" | "wide";
  width: number;
  height: number;
  innerW: number;
  innerH: number;
  ticks: number;
  className: string;
}
const size = (key: Size["key"], width: number, height: number, ticks: number, className: string): Size => ({
  key,
  width,
  height,
  innerW: width - MARGIN.left - MARGIN.right,
  innerH: height - MARGIN.top - MARGIN.bottom,
  ticks,
  className,
});
const SIZES: Size[] = [size("narrow", 300, 220, 3, "sm:hidden"), size("wide", 600, 230, 6, "hidden sm:block")];
// The palette's variables (emerald-600, amber-600, red-600, slate-500, slate-600, brand-600, violet-600),
// not literals: in dark mode app/globals.css swaps them for their light shades.
const CLASS_COLORS: Record<"2xx" | "4xx" | "5xx", string> = {
  "2xx": "var(--color-emerald-600)",
  "4xx": "var(--color-amber-600)",
  "5xx": "var(--color-red-600)",
};
const AXIS_COLOR = "var(--color-slate-500)";
const TICK_LABEL = { fill: "var(--color-slate-600)", fontSize: 13, fontFamily: "inherit" } as const;
const P50_COLOR = "var(--color-brand-600)";
const P95_COLOR = "var(--color-violet-600)";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Tick spacings, each a whole number of hours or days counted from midnight UTC ("odd time ticks"). */
const TICK_STEPS = [HOUR, 2 * HOUR, 3 * HOUR, 4 * HOUR, 6 * HOUR, 8 * HOUR, 12 * HOUR, DAY, 2 * DAY, 5 * DAY, 7 * DAY, 14 * DAY];

/**
 * The x-axis ticks: the slots that start on a round time (every 6 hours: 00:00, 06:00, …; every 5
 * days: midnights), the smallest spacing that gives at most `max` of them, labelled with the time
 * of day below a day's spacing and the date from it (UTC, as the data).
 */
export function timeTicks(ats: string[], max: number): { values: string[]; format: (iso: string) => string } {
  const times = ats.map((a) => Date.parse(a));
  for (const step of TICK_STEPS) {
    const values = ats.filter((_, i) => times[i]! % step === 0);
    if (values.length > 0 && values.length <= max) {
      return {
        values,
        format: (iso) =>
          step < DAY ? iso.slice(11, 16) : new Date(iso).toLocaleDateString("en-GB", { day: "numeric", month: "short", timeZone: "UTC" }),
      };
    }
  }
  return { values: ats.slice(0, 1), format: (iso) => iso.slice(0, 10) };
}

/** Whole-number ticks for a count or a time in milliseconds (no "0.5 requests"). */
export function integerTicks(scale: { ticks: (count?: number) => number[] }, count: number): number[] {
  return scale.ticks(count).filter((v) => Number.isInteger(v));
}

/** Bar widths the requests chart sums its slots into, so a bar stays a readable width (30 days: a bar per day, not 120 of 3 px). */
const BAR_STEPS = [15 * 60_000, HOUR, 6 * HOUR, DAY];
const MAX_BARS = 48;

/** Sums the slots into wider bars (counts add up; latency is not summed: its chart keeps the slots). */
export function binPoints(points: ChartPoint[]): ChartPoint[] {
  if (points.length <= MAX_BARS) return points;
  const first = Date.parse(points[0]!.at);
  const last = Date.parse(points.at(-1)!.at);
  const step = BAR_STEPS.find((s) => Math.floor(last / s) - Math.floor(first / s) + 1 <= MAX_BARS) ?? DAY;
  const bins = new Map<number, ChartPoint>();
  for (const p of points) {
    const key = Math.floor(Date.parse(p.at) / step) * step;
    const bin = bins.get(key) ?? { at: new Date(key).toISOString(), "2xx": 0, "4xx": 0, "5xx": 0, p50Ms: null, p95Ms: null };
    bin["2xx"] += p["2xx"];
    bin["4xx"] += p["4xx"];
    bin["5xx"] += p["5xx"];
    bins.set(key, bin);
  }
  return [...bins.values()];
}

function Figure({
  id,
  title,
  description,
  table,
  draw,
}: {
  id: string;
  title: string;
  description: string;
  table: ReactNode;
  draw: (size: Size) => ReactNode;
}) {
  return (
    <figure className="min-w-0">
      {SIZES.map((sz) => (
        <svg
          key={sz.key}
          viewBox={`0 0 ${sz.width} ${sz.height}`}
          className={`h-auto w-full ${sz.className}`}
          role="img"
          aria-labelledby={`${id}-${sz.key}-title ${id}-${sz.key}-desc`}
          data-testid={sz.key === "wide" ? id : `${id}-${sz.key}`}
        >
          <title id={`${id}-${sz.key}-title`}>{title}</title>
          <desc id={`${id}-${sz.key}-desc`}>{description}</desc>
          {draw(sz)}
        </svg>
      ))}
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer text-slate-600 hover:text-slate-900">Show the numbers as a table</summary>
        <div role="region" aria-label={`${title}: table`} tabIndex={0} className="mt-2 max-h-72 max-w-full overflow-auto">
          {table}
        </div>
      </details>
    </figure>
  );
}

const th = "px-2 py-1 text-left font-medium text-slate-700";
const td = "px-2 py-1 text-slate-900 tabular-nums";

export function RequestsChart({ points: slots }: { points: ChartPoint[] }) {
  const points = binPoints(slots);
  const keys = ["2xx", "4xx", "5xx"] as const;
  const totals = points.map((p) => p["2xx"] + p["4xx"] + p["5xx"]);
  const max = Math.max(1, ...totals);
  const sum = (k: (typeof keys)[number]) => points.reduce((n, p) => n + p[k], 0);
  const nonEmpty = points.filter((_, i) => totals[i]! > 0);
  return (
    <Figure
      id="requests-chart"
      title="Requests over time by status class"
      description={`${sum("2xx")} successful (2xx), ${sum("4xx")} client errors (4xx) and ${sum("5xx")} server errors (5xx) in ${points.length} time slots; the busiest slot had ${Math.max(0, ...totals)} requests.`}
      table={
        <table className="w-full text-sm">
          <thead>
            <tr>
              <th className={th} scope="col">Slot (UTC)</th>
              {keys.map((k) => (
                <th key={k} className={th} scope="col">{k}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {nonEmpty.length ? (
              nonEmpty.map((p) => (
                <tr key={p.at} className="border-t border-slate-100">
                  <td className={td}>{p.at.slice(0, 16).replace("T", " ")}</td>
                  {keys.map((k) => (
                    <td key={k} className={td}>{p[k]}</td>
                  ))}
                </tr>
              ))
            ) : (
              <tr>
                <td className={td} colSpan={4}>No requests in this range.</td>
              </tr>
            )}
          </tbody>
        </table>
      }
      draw={(sz) => {
        const ticks = timeTicks(points.map((p) => p.at), sz.ticks);
        const x = scaleBand<string>({ domain: points.map((p) => p.at), range: [0, sz.innerW], padding: 0.15 });
        const y = scaleLinear<number>({ domain: [0, max], range: [sz.innerH, 0], nice: true });
        return (
          <Group left={MARGIN.left} top={MARGIN.top}>
            <BarStack<ChartPoint, (typeof keys)[number]>
              data={points}
              keys={[...keys]}
              x={(p) => p.at}
              xScale={x}
              yScale={y}
              color={(k) => CLASS_COLORS[k]}
            >
              {(stacks) =>
                stacks.map((stack) =>
                  stack.bars.map((bar) =>
                    bar.height > 0 ? (
                      <rect key={`${stack.key}-${bar.index}`} x={bar.x} y={bar.y} width={Math.max(1, bar.width)} height={bar.height} fill={bar.color} />
                    ) : null,
                  ),
                )
              }
            </BarStack>
            <AxisLeft scale={y} tickValues={integerTicks(y, 4)} tickFormat={(v) => Number(v).toLocaleString("en")} stroke={AXIS_COLOR} tickStroke={AXIS_COLOR} tickLabelProps={{ ...TICK_LABEL, textAnchor: "end", dx: -4, dy: 4 }} />
            <AxisBottom
              top={sz.innerH}
              scale={x}
              tickValues={ticks.values}
              tickFormat={ticks.format}
              stroke={AXIS_COLOR}
              tickStroke={AXIS_COLOR}
              tickLabelProps={{ ...TICK_LABEL, textAnchor: "middle" }}
            />
          </Group>
        );
      }}
    />
  );
}

export function LatencyChart({ points }: { points: ChartPoint[] }) {
  const values = points.flatMap((p) => [p.p50Ms ?? 0, p.p95Ms ?? 0]);
  const max = Math.max(1, ...values);
  const measured = points.filter((p) => p.p50Ms !== null);
  const worst = measured.reduce((m, p) => Math.max(m, p.p95Ms ?? 0), 0);
  return (
    <Figure
      id="latency-chart"
      title="Latency over time, p50 and p95 (milliseconds)"
      description={
        measured.length
          ? `Median (p50) and 95th percentile (p95) response times of ${measured.length} time slots with requests; the highest p95 was ${worst} ms.`
          : "No requests in this range, so no latency to show."
      }
      table={
        <table className="w-full text-sm">
          <thead>
            <tr>
              <th className={th} scope="col">Slot (UTC)</th>
              <th className={th} scope="col">p50 (ms)</th>
              <th className={th} scope="col">p95 (ms)</th>
            </tr>
          </thead>
          <tbody>
            {measured.length ? (
              measured.map((p) => (
                <tr key={p.at} className="border-t border-slate-100">
                  <td className={td}>{p.at.slice(0, 16).replace("T", " ")}</td>
                  <td className={td}>{p.p50Ms}</td>
                  <td className={td}>{p.p95Ms}</td>
                </tr>
              ))
            ) : (
              <tr>
                <td className={td} colSpan={3}>No requests in this range.</td>
              </tr>
            )}
          </tbody>
        </table>
      }
      draw={(sz) => {
        const ticks = timeTicks(points.map((p) => p.at), sz.ticks);
        const x = scaleBand<string>({ domain: points.map((p) => p.at), range: [0, sz.innerW], padding: 0.15 });
        const y = scaleLinear<number>({ domain: [0, max], range: [sz.innerH, 0], nice: true });
        const cx = (p: ChartPoint) => (x(p.at) ?? 0) + x.bandwidth() / 2;
        return (
          <Group left={MARGIN.left} top={MARGIN.top}>
            <LinePath<ChartPoint>
              data={points}
              defined={(p) => p.p95Ms !== null}
              x={cx}
              y={(p) => y(p.p95Ms ?? 0)}
              stroke={P95_COLOR}
              strokeWidth={2}
              strokeDasharray="5 3"
            />
            <LinePath<ChartPoint> data={points} defined={(p) => p.p50Ms !== null} x={cx} y={(p) => y(p.p50Ms ?? 0)} stroke={P50_COLOR} strokeWidth={2} />
            {measured.length <= 3
              ? measured.map((p) => (
                  <g key={p.at}>
                    <circle cx={cx(p)} cy={y(p.p50Ms ?? 0)} r={3} fill={P50_COLOR} />
                    <circle cx={cx(p)} cy={y(p.p95Ms ?? 0)} r={3} fill={P95_COLOR} />
                  </g>
                ))
              : null}
            <AxisLeft scale={y} tickValues={integerTicks(y, 4)} tickFormat={(v) => Number(v).toLocaleString("en")} stroke={AXIS_COLOR} tickStroke={AXIS_COLOR} tickLabelProps={{ ...TICK_LABEL, textAnchor: "end", dx: -4, dy: 4 }} />
            <AxisBottom
              top={sz.innerH}
              scale={x}
              tickValues={ticks.values}
              tickFormat={ticks.format}
              stroke={AXIS_COLOR}
              tickStroke={AXIS_COLOR}
              tickLabelProps={{ ...TICK_LABEL, textAnchor: "middle" }}
            />
          </Group>
        );
      }}
    />
  );
}

export function ChartLegend({ items }: { items: { label: string; color: string; dashed?: boolean }[] }) {
  return (
    <ul className="flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-600" aria-hidden="true">
      {items.map((item) => (
        <li key={item.label} className="inline-flex items-center gap-1.5">
          <span
            className="inline-block h-2.5 w-4 rounded-sm"
            style={item.dashed ? { borderTop: `2px dashed ${item.color}` } : { backgroundColor: item.color }}
          />
          {item.label}
        </li>
      ))}
    </ul>
  );
}

export const REQUEST_LEGEND = [
  { label: "2xx", color: CLASS_COLORS["2xx"] },
  { label: "4xx", color: CLASS_COLORS["4xx"] },
  { label: "5xx", color: CLASS_COLORS["5xx"] },
];
export const LATENCY_LEGEND = [
  { label: "p50", color: P50_COLOR },
  { label: "p95", color: P95_COLOR, dashed: true },
];

/**
 * A snake_case code that may wrap only after its underscores (`break-all` cut
 * `idempotency_key_reused` mid-word on phones); a single part too long for its box still breaks
 * (`break-words` on the parent), as a last resort.
 */
function BreakAtUnderscores({ text }: { text: string }) {
  const parts = text.split("_");
  return parts.map((part, i) => (
    <Fragment key={i}>
      {part}
      {i < parts.length - 1 ? (
        <>
          _<wbr />
        </>
      ) : null}
    </Fragment>
  ));
}

/**
 * Errors by code: one horizontal bar each, the numbers written beside them (no separate table
 * needed). Every code, not a top few (the figures must add up), and HTML rather than a
 * scaled SVG, so its text keeps its size on a phone (the SVG shrank it to ~9 px).
 */
export function ErrorsByCode({ errors }: { errors: { code: string; status: number; count: number }[] }) {
  const max = Math.max(1, ...errors.map((r) => r.count));
  return (
    <ul
      className="max-w-xl space-y-1.5"
      aria-label={`Errors by code: ${errors.map((r) => `${r.count} × ${r.status} ${r.code}`).join(", ")}`}
      data-testid="errors-chart"
    >
      {errors.map((r) => (
        <li key={`${r.status} ${r.code}`} className="grid grid-cols-[minmax(0,11rem)_minmax(0,1fr)] items-center gap-x-3 text-sm sm:grid-cols-[13rem_minmax(0,1fr)]" data-testid="errors-chart-row">
          <code className="font-mono text-sm break-words text-slate-900">
            {r.status} <BreakAtUnderscores text={r.code} />
          </code>
          <span className="flex min-w-0 items-center gap-2">
            <span
              aria-hidden="true"
              className="h-4 min-w-0.5 rounded-sm"
              style={{ width: `${(r.count / max) * 85}%`, backgroundColor: r.status >= 500 ? CLASS_COLORS["5xx"] : CLASS_COLORS["4xx"] }}
            />
            <span className="text-slate-700 tabular-nums">{r.count.toLocaleString("en")}</span>
          </span>
        </li>
      ))}
    </ul>
  );
}
