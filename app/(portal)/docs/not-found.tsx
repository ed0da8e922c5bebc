import Link from "next/link";
import { DocsShell } from "@/components/docs/docs-shell";

export default function DocsNotFound() {
  return (
    <DocsShell>
      <div className="max-w-3xl py-8">
        <p className="text-sm font-semibold text-brand-700">404</p>
        <h1 className="mt-1 text-3xl font-semibold tracking-tight text-slate-900">Page not found</h1>
        <p className="mt-3 text-slate-600">
          There is no docs page at this address. Pick one from the list, search the docs (press <kbd>/</kbd>), or start
          with{" "}
          <Link href="/docs" className="font-medium text-brand-700 underline underline-offset-2">
            Getting started
          </Link>
          .
        </p>
      </div>
    </DocsShell>
  );
}
