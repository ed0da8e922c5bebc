import Link from "next/link";
import type { ReactNode } from "react";
import { AppStatusBadge } from "@/components/apps/app-status-badge";
import { AppTabs } from "@/components/apps/app-tabs";
import { AppTypeBadge } from "@/components/apps/app-type-badge";
import { NavSection } from "@/components/layout/nav-section";
import { Icon } from "@/components/ui/icon";
import { PageHeader } from "@/components/ui/page-header";
import type { AppView } from "@/lib/schemas/apps";

/**
 * The head of every app page (overview, usage, webhooks, sandbox): the admin's section bar for a
 * non-member, the way back, the app's name with its type and status, and the tabs. A team member
 * goes back to My apps; an admin to `adminBack` (the applications list unless said otherwise).
 */
export function AppPageHeader({
  app,
  current,
  onTeam,
  adminBack = { href: "/admin/apps", label: "All applications" },
  details,
  actions,
}: {
  app: Pick<AppView, "clientId" | "name" | "type" | "status">;
  current: "overview" | "usage" | "webhooks" | "sandbox";
  onTeam: boolean;
  adminBack?: { href: string; label: string };
  /** More beside the badges (the overview names the owner for an admin). */
  details?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <>
      {onTeam ? null : <NavSection href="/admin" />}
      <PageHeader
        bordered={false}
        eyebrow={
          <Link href={onTeam ? "/apps" : adminBack.href} className="inline-flex items-center gap-1 hover:text-slate-900">
            <Icon name="arrowLeft" /> {onTeam ? "My apps" : adminBack.label}
          </Link>
        }
        title={<span className="wrap-anywhere">{app.name}</span>}
        description={
          <div className="flex flex-wrap items-center gap-2">
            <AppTypeBadge type={app.type} />
            <AppStatusBadge status={app.status} />
            {details}
          </div>
        }
        actions={actions}
      />
      <AppTabs clientId={app.clientId} current={current} />
    </>
  );
}
