import { NavSectionProvider } from "@/components/layout/nav-section";
import { SiteFooter } from "@/components/layout/site-footer";
import { SiteHeader } from "@/components/layout/site-header";
import { getCurrentUser } from "@/lib/portal/session";
import { countUnreadNotices } from "@/lib/services/portal-notifications";

/**
 * The portal's shell. Sign-in is required by the apps/ and admin/ layouts and pages (each checks on
 * the server); the docs are public, so developers can read them before registering.
 */
export default async function PortalLayout({ children }: { children: React.ReactNode }) {
  const user = await getCurrentUser();
  // The bell's count of unread notices (review decisions on the person's apps).
  const notices = user ? await countUnreadNotices(user.id) : 0;
  return (
    <NavSectionProvider>
      <div className="flex min-h-screen flex-col">
        <SiteHeader user={user ? { handle: user.handle, displayName: user.displayName, role: user.role } : null} notices={notices} />
        <div className="flex-1">{children}</div>
        <SiteFooter />
      </div>
    </NavSectionProvider>
  );
}
