import { AxisBottom, AxisLeft } from "@visx/axis";
import { Group } from "@visx/group";
import { scaleBand, scaleLinear } from "@visx/scale";
import { Bar, BarStack, LinePath } from "@visx/shape";
import type { ReactNode } from "react";

/**
 * Issue 16: the Usage tab's charts, drawn by @visx on the server (no client JavaScript). Each SVG is
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
const SIZES: Size[] = [size("narrow", 360, 220, 3, "sm:hidden"), size("wide", 600, 230, 6, "hidden sm:block")];
const CLASS_COLORS: Record<"2xx" | "4xx" | "5xx", string> = { "2xx": "#059669", "4xx": "#d97706", "5xx": "#dc2626" };
const AXIS_COLOR = "#64748b";
const TICK_LABEL = { fill: "#475569", fontSize: 13, fontFamily: "inherit" } as const;

/** Slot label: time of day for one day, else the date (UTC, as the data). */
function slotLabel(iso: string, daily: boolean): string {
  const d = new Date(iso);
  if (!daily) return `${d.toISOString().slice(11, 16)}`;
  return d.toLocaleDateString("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });
}

function everyNth(points: ChartPoint[], count: number): string[] {
  const step = Math.max(1, Math.ceil(points.length / count));
  return points.filter((_, i) => i % step === 0).map((p) => p.at);
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

export function RequestsChart({ points, daily }: { points: ChartPoint[]; daily: boolean }) {
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
            <AxisLeft scale={y} numTicks={4} stroke={AXIS_COLOR} tickStroke={AXIS_COLOR} tickLabelProps={{ ...TICK_LABEL, textAnchor: "end", dx: -4, dy: 4 }} />
            <AxisBottom
              top={sz.innerH}
              scale={x}
              tickValues={everyNth(points, sz.ticks)}
              tickFormat={(v) => slotLabel(v, daily)}
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

export function LatencyChart({ points, daily }: { points: ChartPoint[]; daily: boolean }) {
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
              stroke="#7c3aed"
              strokeWidth={2}
              strokeDasharray="5 3"
            />
            <LinePath<ChartPoint> data={points} defined={(p) => p.p50Ms !== null} x={cx} y={(p) => y(p.p50Ms ?? 0)} stroke="#4f46e5" strokeWidth={2} />
            {measured.length <= 3
              ? measured.map((p) => (
                  <g key={p.at}>
                    <circle cx={cx(p)} cy={y(p.p50Ms ?? 0)} r={3} fill="#4f46e5" />
                    <circle cx={cx(p)} cy={y(p.p95Ms ?? 0)} r={3} fill="#7c3aed" />
                  </g>
                ))
              : null}
            <AxisLeft scale={y} numTicks={4} stroke={AXIS_COLOR} tickStroke={AXIS_COLOR} tickLabelProps={{ ...TICK_LABEL, textAnchor: "end", dx: -4, dy: 4 }} />
            <AxisBottom
              top={sz.innerH}
              scale={x}
              tickValues={everyNth(points, sz.ticks)}
              tickFormat={(v) => slotLabel(v, daily)}
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
  { label: "p50", color: "#4f46e5" },
  { label: "p95", color: "#7c3aed", dashed: true },
];

/** Errors by code: one horizontal bar each, the numbers written beside them (no separate table needed). */
export function ErrorsByCode({ errors }: { errors: { code: string; status: number; count: number }[] }) {
  const rows = errors.slice(0, 8);
  const rowH = 28;
  const height = rows.length * rowH + 8;
  const width = 420;
  const labelW = 190;
  const x = scaleLinear<number>({ domain: [0, Math.max(1, ...rows.map((r) => r.count))], range: [0, width - labelW - 50] });
  const y = scaleBand<string>({ domain: rows.map((r) => `${r.status} ${r.code}`), range: [4, height - 4], padding: 0.25 });
  return (
    <svg
      viewBox={`0 0 ${width} ${height}`}
      className="h-auto w-full max-w-xl"
      role="img"
      aria-label={`Errors by code: ${rows.map((r) => `${r.count} × ${r.status} ${r.code}`).join(", ")}`}
      data-testid="errors-chart"
    >
      {rows.map((r) => {
        const key = `${r.status} ${r.code}`;
        const top = y(key) ?? 0;
        return (
          <g key={key}>
            <text x={0} y={top + y.bandwidth() / 2 + 5} fontSize={14} fill="#0f172a" fontFamily="ui-monospace, monospace">
              {key}
            </text>
            <Bar x={labelW} y={top} width={Math.max(2, x(r.count))} height={y.bandwidth()} fill={r.status >= 500 ? CLASS_COLORS["5xx"] : CLASS_COLORS["4xx"]} rx={3} />
            <text x={labelW + Math.max(2, x(r.count)) + 8} y={top + y.bandwidth() / 2 + 5} fontSize={14} fill="#334155">
              {r.count}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
