"use client";

import { createContext, useContext, useLayoutEffect, useState, type ReactNode } from "react";

/**
 * Which header link a page belongs to when its URL does not say: an admin reviewing
 * another developer's app at /apps/[clientId] is in the admin area, not in "My apps". The page
 * renders <NavSection href="/admin" />; the header's links read it. Before hydration the header
 * follows the URL.
 */
const NavSectionContext = createContext<{ section: string | null; setSection: (href: string | null) => void }>({
  section: null,
  setSection: () => {},
});

export function NavSectionProvider({ children }: { children: ReactNode }) {
  const [section, setSection] = useState<string | null>(null);
  return <NavSectionContext.Provider value={{ section, setSection }}>{children}</NavSectionContext.Provider>;
}

/** The header link (by href) this page belongs to, while the page is shown. */
export function NavSection({ href }: { href: string }) {
  const { setSection } = useContext(NavSectionContext);
  // Before paint, so the highlight does not flicker from "My apps" to "Admin".
  useLayoutEffect(() => {
    setSection(href);
    return () => setSection(null);
  }, [href, setSection]);
  return null;
}

/** The section set by the current page, or null (the URL decides). */
export function useNavSection(): string | null {
  return useContext(NavSectionContext).section;
}
