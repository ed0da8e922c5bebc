import type { DocsHeading } from "./headings";

/** "On this page": links to the page's headings (h3 indented under their h2). */
export function DocsToc({ headings, label = "On this page" }: { headings: DocsHeading[]; label?: string }) {
  if (headings.length === 0) return null;
  return (
    <nav aria-label={label}>
      <p className="px-3 text-xs font-semibold tracking-wide text-slate-500 uppercase">On this page</p>
      <ul className="mt-3 space-y-0.5 border-l border-slate-200">
        {headings.map((h) => (
          <li key={h.id}>
            <a
              href={`#${h.id}`}
              className={`-ml-px block border-l border-transparent py-1 pr-2 text-sm text-slate-600 hover:border-slate-400 hover:text-slate-900 ${h.level === 3 ? "pl-7" : "pl-4"}`}
            >
              {h.text}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
