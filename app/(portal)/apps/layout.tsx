import { requireUser } from "@/lib/portal/session";

/** Every page under /apps needs a signed-in developer (each page checks again before reading data). */
export default async function AppsLayout({ children }: { children: React.ReactNode }) {
  await requireUser();
  return <main id="main" className="mx-auto max-w-7xl px-4 py-8 sm:px-6 sm:py-10 lg:px-8">{children}</main>;
}
