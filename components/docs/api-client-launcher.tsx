"use client";

import dynamic from "next/dynamic";
import { useState, useSyncExternalStore, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";

/**
 * Scalar is large (about 1 MB of JavaScript, compressed) and browser-only: it is imported only when
 * someone opens the interactive client, as chunks of its own (e2e/js-budget.spec.ts checks that no
 * page loads them before). Until then, the reference rendered on the server (children) is the page.
 */
const ApiReference = dynamic(() => import("./api-reference").then((m) => m.ApiReference), {
  ssr: false,
  loading: () => (
    <div className="space-y-4" role="status" aria-label="Loading the interactive client">
      <Skeleton className="h-8 w-64" />
      <Skeleton className="h-4 w-full" />
      <Skeleton className="h-40 w-full" />
    </div>
  ),
});

const subscribeNever = () => () => {};

export function ApiClientLauncher({ specUrl, children }: { specUrl: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  // The button does something only with JavaScript: it is not rendered on the server.
  const isClient = useSyncExternalStore(
    subscribeNever,
    () => true,
    () => false,
  );
  return (
    <>
      <div className="mb-8 flex min-h-10 flex-wrap items-center gap-3">
        {isClient ? (
          <Button variant={open ? "secondary" : "primary"} onClick={() => setOpen(!open)} aria-expanded={open}>
            {open ? "Close the interactive client" : "Open the interactive client"}
          </Button>
        ) : null}
        <a href={specUrl} className="text-sm font-medium text-brand-700 underline underline-offset-2">
          OpenAPI document (JSON)
        </a>
      </div>
      {open ? <ApiReference specUrl={specUrl} /> : children}
    </>
  );
}
