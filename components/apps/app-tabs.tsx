import Link from "next/link";
import { Icon } from "@/components/ui/icon";

/**
 * The app page's sections: the overview (settings, secrets, team), its usage and its
 * webhooks and its sandbox. Rendered on the server with the current tab given, so it needs no client
 * JavaScript. On a phone the four labels fit without their icons (no tab starts off-screen).
 */
export function AppTabs({ clientId, current }: { clientId: string; current: "overview" | "usage" | "webhooks" | "sandbox" }) {
  const tabs = [
    { key: "overview", href: `/apps/${clientId}`, label: "Overview", icon: "grid" as const },
    { key: "usage", href: `/apps/${clientId}/usage`, label: "Usage", icon: "chart" as const },
    { key: "webhooks", href: `/apps/${clientId}/webhooks`, label: "Webhooks", icon: "zap" as const },
    { key: "sandbox", href: `/apps/${clientId}/sandbox`, label: "Sandbox", icon: "flask" as const },
  ];
  return (
    <nav aria-label="Application sections" className="-mt-2 flex gap-4 overflow-x-auto sm:gap-6 border-b border-slate-200">
      {tabs.map((tab) => {
        const active = tab.key === current;
        return (
          <Link
            key={tab.key}
            href={tab.href}
            prefetch={false}
            aria-current={active ? "page" : undefined}
            className={`-mb-px inline-flex items-center gap-2 border-b-2 px-1 pb-3 text-sm font-medium whitespace-nowrap transition-colors ${
              active ? "border-brand-600 text-brand-700" : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900"
            }`}
          >
            <span className="hidden sm:inline-flex">
              <Icon name={tab.icon} />
            </span>
            {tab.label}
          </Link>
        );
      })}
    </nav>
  );
}
