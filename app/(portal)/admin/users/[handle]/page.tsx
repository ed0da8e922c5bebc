import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ConnectedAppList } from "@/components/account/connected-app-list";
import { Icon } from "@/components/ui/icon";
import { isAppError } from "@/lib/errors";
import { requireAdmin, toActor } from "@/lib/portal/session";
import { handleSchema } from "@/lib/schemas/users";
import { listConnectedApps } from "@/lib/services/connected-apps";
import { findUserByHandle } from "@/lib/services/users";

export const metadata: Metadata = { title: "User · Admin" };

/** An admin's view of one person: the apps they authorized, with the same "Revoke access" they have (issue 15). */
export default async function AdminUserPage({ params }: { params: Promise<{ handle: string }> }) {
  const admin = await requireAdmin();
  const parsed = handleSchema.safeParse((await params).handle);
  if (!parsed.success) notFound();
  const user = await findUserByHandle(parsed.data);
  if (!user) notFound();
  let apps;
  try {
    apps = await listConnectedApps(user.handle, await toActor(admin));
  } catch (error) {
    if (isAppError(error) && error.code === "not_found") notFound();
    throw error;
  }
  return (
    <div className="space-y-6">
      <Link href="/admin/users" className="inline-flex items-center gap-1 text-sm text-brand-700 hover:underline">
        <Icon name="arrowLeft" /> All users
      </Link>
      <div className="min-w-0">
        <h2 className="text-xl font-semibold break-words text-slate-900">
          {user.displayName} <span className="font-normal text-slate-600">@{user.handle}</span>
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          {user.role === "admin" ? "Admin · " : ""}
          {user.disabled ? "Disabled · " : ""}
          {user.muted ? "Muted · " : ""}
          Connected apps: the login clients this person authorized. Revoking signs the app out of their account at once.
        </p>
      </div>
      <ConnectedAppList apps={apps} handle={user.handle} forSomeoneElse now={new Date()} />
    </div>
  );
}
