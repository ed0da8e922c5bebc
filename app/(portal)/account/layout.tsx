import { requireUser } from "@/lib/portal/session";

/** The signed-in person's own pages (Connected apps); each page checks the session again before reading data. */
export default async function AccountLayout({ children }: { children: React.ReactNode }) {
  await requireUser();
  return <main id="main" className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-10 lg:px-8">{children}</main>;
}
