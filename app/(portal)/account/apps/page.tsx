import type { Metadata } from "next";
import { ConnectedAppList } from "@/components/account/connected-app-list";
import { PageHeader } from "@/components/ui/page-header";
import { requireUser, toActor } from "@/lib/portal/session";
import { listConnectedApps } from "@/lib/services/connected-apps";

export const metadata: Metadata = { title: "Connected apps" };

/** Every signed-in person's list of the apps they let sign them in, from the avatar menu. */
export default async function ConnectedAppsPage() {
  const user = await requireUser();
  const apps = await listConnectedApps(user.handle, await toActor(user));
  return (
    <div className="space-y-8">
      <PageHeader
        title="Connected apps"
        description="Apps you signed in to with your platform account, and what each may do for you. Revoking access signs the app out at once; it has to ask for your consent again."
      />
      <ConnectedAppList apps={apps} handle={user.handle} forSomeoneElse={false} now={new Date()} />
    </div>
  );
}
