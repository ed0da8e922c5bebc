import type { Metadata } from "next";
import { ApiReferenceLoader } from "@/components/docs/api-reference-loader";

export const metadata: Metadata = { title: "API reference" };

/** Rendered from /api/v1/openapi.json (built from the same zod schemas the API validates with). */
export default function ApiReferencePage() {
  return (
    <main id="main" className="min-h-[80vh] bg-white">
      <h1 className="sr-only">API reference</h1>
      <ApiReferenceLoader specUrl="/api/v1/openapi.json" />
    </main>
  );
}
