"use client";

import dynamic from "next/dynamic";
import { Skeleton } from "@/components/ui/skeleton";

/** Scalar is large and browser-only: load it on this page only, after hydration. */
const ApiReference = dynamic(() => import("./api-reference").then((m) => m.ApiReference), {
  ssr: false,
  loading: () => (
    <div className="mx-auto max-w-5xl space-y-4 px-6 py-10" role="status" aria-label="Loading the API reference">
      <Skeleton className="h-8 w-64" />
      <Skeleton className="h-4 w-full" />
      <Skeleton className="h-4 w-5/6" />
      <Skeleton className="h-40 w-full" />
    </div>
  ),
});

export function ApiReferenceLoader({ specUrl }: { specUrl: string }) {
  return <ApiReference specUrl={specUrl} />;
}
