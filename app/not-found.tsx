import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";

export default function NotFound() {
  return (
    <main id="main" className="mx-auto flex min-h-[60vh] max-w-lg flex-col items-center justify-center px-4 py-16 text-center">
      <p className="text-sm font-semibold text-brand-700">404</p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight">Page not found</h1>
      <p className="mt-2 text-slate-600">The page does not exist, or you do not have access to it.</p>
      <div className="mt-8 flex gap-3">
        <Link href="/" className={buttonClasses("secondary")}>
          <Icon name="arrowLeft" /> Home
        </Link>
        <Link href="/docs" className={buttonClasses("primary")}>
          Documentation
        </Link>
      </div>
    </main>
  );
}
