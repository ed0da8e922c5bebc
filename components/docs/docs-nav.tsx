import { NavLink } from "@/components/layout/nav-link";

/** The docs pages in reading order: the sidebar, previous/next links and the search index follow it. */
export const DOCS_PAGES = [
  { href: "/docs", label: "Getting started" },
  { href: "/docs/authentication", label: "Authentication" },
  { href: "/docs/scopes", label: "Scopes" },
  { href: "/docs/sdk", label: "SDK and quickstarts" },
  { href: "/docs/sandbox", label: "Sandbox" },
  { href: "/docs/events", label: "Events and webhooks" },
  { href: "/docs/agents", label: "Connect an AI agent" },
  { href: "/docs/mcp", label: "Use the platform from an AI agent" },
  { href: "/docs/errors", label: "Errors and limits" },
  { href: "/docs/api-reference", label: "API reference" },
  { href: "/docs/changes", label: "Versioning and changes" },
  { href: "/docs/changelog", label: "Changelog" },
] as const;

export type DocsPath = (typeof DOCS_PAGES)[number]["href"];

export function DocsNav() {
  return (
    <nav aria-label="Documentation">
      <p className="px-3 text-xs font-semibold tracking-wide text-slate-500 uppercase">Documentation</p>
      <ul className="mt-3 space-y-0.5">
        {DOCS_PAGES.map((p) => (
          <li key={p.href}>
            <NavLink href={p.href} exact variant="sidebar">
              {p.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
