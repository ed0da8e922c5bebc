import { NavSectionProvider } from "@/components/layout/nav-section";
import { SiteFooter } from "@/components/layout/site-footer";
import { SiteHeader } from "@/components/layout/site-header";
import { getCurrentUser } from "@/lib/portal/session";

/**
 * The portal's shell. Sign-in is required by the apps/ and admin/ layouts and pages (each checks on
 * the server); the docs are public, so developers can read them before registering.
 */
export default async function PortalLayout({ children }: { children: React.ReactNode }) {
  const user = await getCurrentUser();
  return (
    <NavSectionProvider>
      <div className="flex min-h-screen flex-col">
        <SiteHeader user={user ? { handle: user.handle, displayName: user.displayName, role: user.role } : null} />
        <div className="flex-1">{children}</div>
        <SiteFooter />
      </div>
    </NavSectionProvider>
  );
}
