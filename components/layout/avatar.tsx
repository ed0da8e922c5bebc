// White initials on each: every shade is at least 4.5:1 (WCAG AA for small text; emerald-600 was 3.8:1).
const COLORS = ["bg-brand-700", "bg-emerald-700", "bg-sky-700", "bg-rose-700", "bg-amber-700", "bg-violet-700", "bg-teal-700"];

/** Initials on a colour picked from the handle (no remote images). */
export function Avatar({ handle, name, size = "md" }: { handle: string; name?: string; size?: "sm" | "md" }) {
  let hash = 0;
  for (const ch of handle) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const initials = (name || handle)
    .split(/\s+/)
    .map((w) => w[0] ?? "")
    .join("")
    .slice(0, 2)
    .toUpperCase();
  return (
    <span
      aria-hidden="true"
      className={`inline-flex shrink-0 items-center justify-center rounded-full font-semibold text-white ${COLORS[hash % COLORS.length]} ${size === "sm" ? "size-7 text-xs" : "size-9 text-sm"}`}
    >
      {initials}
    </span>
  );
}
