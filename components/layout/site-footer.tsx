import Link from "next/link";
import { env } from "@/lib/env";
import { Logo } from "./logo";

export function SiteFooter() {
  const groups = [
    {
      title: "Build",
      links: [
        { href: "/docs", label: "Getting started" },
        { href: "/docs/authentication", label: "Authentication" },
        { href: "/docs/scopes", label: "Scopes" },
        { href: "/docs/sdk", label: "SDK and quickstarts" },
        { href: "/docs/events", label: "Events and webhooks" },
      ],
    },
    {
      title: "Reference",
      links: [
        { href: "/docs/api-reference", label: "API reference" },
        { href: "/docs/errors", label: "Errors and limits" },
        { href: "/api/v1/openapi.json", label: "OpenAPI document" },
      ],
    },
    {
      title: "Portal",
      links: [
        { href: "/apps", label: "My apps" },
        { href: "/apps/new", label: "Register an app" },
        { href: `${env().ISSUER}/.well-known/openid-configuration`, label: "OIDC discovery" },
      ],
    },
  ];
  return (
    <footer className="border-t border-slate-200 bg-white">
      <div className="mx-auto grid max-w-7xl grid-cols-2 gap-8 px-4 py-10 sm:grid-cols-3 sm:px-6 md:grid-cols-4 md:gap-10 md:py-12 lg:px-8">
        <div className="col-span-2 sm:col-span-3 md:col-span-1">
          <Logo tone="dark" />
          <p className="mt-3 max-w-xs text-sm text-slate-600">
            OpenID Connect sign-in, a JSON API with scoped tokens, and a portal to manage your apps.
          </p>
        </div>
        {groups.map((g) => (
          <nav key={g.title} aria-label={g.title}>
            <h2 className="text-sm font-semibold text-slate-900">{g.title}</h2>
            <ul className="mt-3 space-y-2">
              {g.links.map((l) => (
                <li key={l.href}>
                  <Link href={l.href} prefetch={false} className="text-sm text-slate-600 hover:text-slate-900">
                    {l.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        ))}
      </div>
    </footer>
  );
}
