import type { Metadata } from "next";
import { ApiReferenceLoader } from "@/components/docs/api-reference-loader";

export const metadata: Metadata = { title: "API reference" };

/**
 * Rendered from /api/v1/openapi.json (built from the same zod schemas the API validates with).
 * Scalar renders its own `<main>` landmark, so the page's wrapper is a plain block (one main, at
 * the top level); the loading state brings its own until Scalar has arrived.
 */
export default function ApiReferencePage() {
  return (
    <div id="main" className="min-h-[80vh] bg-white">
      <ApiReferenceLoader specUrl="/api/v1/openapi.json" />
    </div>
  );
}
