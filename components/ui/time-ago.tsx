const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

/**
 * "3 hours ago", with the exact UTC time in the title and the machine-readable dateTime. `now` is
 * required and comes from the server's render (the page reads the clock once and passes it down):
 * a client component reading its own clock would render another text in the browser than on the
 * server, React's hydration text mismatch (#418).
 */
export function TimeAgo({ date, now }: { date: Date; now: Date }) {
  const seconds = Math.round((date.getTime() - now.getTime()) / 1000);
  const format = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  let text = "just now";
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) {
      text = format.format(Math.round(seconds / size), unit);
      break;
    }
  }
  const exact = `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return (
    <time dateTime={date.toISOString()} title={exact}>
      {text}
    </time>
  );
}
