import Link from "next/link";

/**
 * The Live / Sandbox switch of the Webhooks tab. Two links (the world is in the URL, so
 * the page renders on the server and the choice survives a reload), the current one marked with
 * aria-current.
 */
export function WorldSwitch({ href, sandbox }: { href: string; sandbox: boolean }) {
  const worlds = [
    { key: "live", label: "Live", href, active: !sandbox },
    { key: "sandbox", label: "Sandbox", href: `${href}?world=sandbox`, active: sandbox },
  ];
  return (
    <nav aria-label="Live or sandbox endpoints" className="inline-flex rounded-lg border border-slate-300 bg-white p-1" data-testid="world-switch">
      {worlds.map((w) => (
        <Link
          key={w.key}
          href={w.href}
          prefetch={false}
          aria-current={w.active ? "page" : undefined}
          className={`rounded-md px-3 py-1.5 text-sm font-medium transition-colors ${
            w.active ? (w.key === "sandbox" ? "bg-amber-100 text-amber-900" : "bg-brand-50 text-brand-700") : "text-slate-600 hover:text-slate-900"
          }`}
        >
          {w.label}
        </Link>
      ))}
    </nav>
  );
}
