import Link from "next/link";

export function Logo({ tone = "light" }: { tone?: "light" | "dark" }) {
  return (
    <Link
      href="/"
      className={`flex items-center gap-2.5 rounded-md font-semibold tracking-tight ${tone === "light" ? "text-white" : "text-slate-900"}`}
    >
      <svg viewBox="0 0 32 32" className="size-7" aria-hidden="true">
        <rect width="32" height="32" rx="8" fill="#4f46e5" />
        <path d="M9 11.5 16 7l7 4.5v9L16 25l-7-4.5z" fill="none" stroke="#fff" strokeWidth="2.4" strokeLinejoin="round" />
        <circle cx="16" cy="16" r="2.6" fill="#fff" />
      </svg>
      <span>
        Platform <span className={tone === "light" ? "font-normal text-slate-300" : "font-normal text-slate-600"}>Developers</span>
      </span>
    </Link>
  );
}
