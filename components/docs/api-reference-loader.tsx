"use client";

import dynamic from "next/dynamic";
import { Skeleton } from "@/components/ui/skeleton";

/**
 * Scalar is large (about 1 MB of JavaScript, compressed) and browser-only: only this page imports
 * it, and only after hydration, as chunks of their own (e2e/js-budget.spec.ts checks that no other
 * page loads them). Until it arrives, a skeleton holds the page's one main landmark and heading.
 */
const ApiReference = dynamic(() => import("./api-reference").then((m) => m.ApiReference), {
  ssr: false,
  loading: () => (
    <main className="mx-auto max-w-5xl space-y-4 px-6 py-10" aria-busy="true">
      <h1 className="sr-only">API reference</h1>
      <div className="space-y-4" role="status" aria-label="Loading the API reference">
        <Skeleton className="h-8 w-64" />
        <Skeleton className="h-4 w-full" />
        <Skeleton className="h-4 w-5/6" />
        <Skeleton className="h-40 w-full" />
      </div>
    </main>
  ),
});

export function ApiReferenceLoader({ specUrl }: { specUrl: string }) {
  return <ApiReference specUrl={specUrl} />;
}
