import type { Metadata } from "next";
import { ApiClientLauncher } from "@/components/docs/api-client-launcher";
import { ApiOperations, tagAnchor } from "@/components/docs/api-operations";
import { DocsPager } from "@/components/docs/docs-pager";
import { DocsShell } from "@/components/docs/docs-shell";
import { listOperations } from "@/components/docs/openapi-operations";
import { getOpenApiDocument } from "@/lib/api/openapi";

export const metadata: Metadata = { title: "API reference" };

/**
 * Rendered on the server from the OpenAPI document that /api/v1/openapi.json serves (built from the
 * same zod schemas the API validates with): every operation is readable without JavaScript. Scalar's
 * interactive client loads only when asked for.
 */
export default function ApiReferencePage() {
  const doc = getOpenApiDocument();
  const operations = listOperations(doc);
  const tags = (doc.tags ?? []).filter((t) => operations.some((op) => op.tag === t.name));
  return (
    <DocsShell headings={tags.map((t) => ({ id: tagAnchor(t.name), text: t.name, level: 2 }))}>
      <article>
        <h1 className="max-w-3xl text-3xl font-semibold tracking-tight text-slate-900 sm:text-4xl">API reference</h1>
        <p className="mt-4 max-w-3xl text-lg text-slate-600">
          {doc.info.title} {doc.info.version}: every operation under <code className="font-mono text-base">{doc.servers?.[0]?.url}</code>, with its
          parameters and responses.
        </p>
        <div className="prose-doc mt-8">
          <ApiClientLauncher specUrl="/api/v1/openapi.json">
            <ApiOperations operations={operations} tags={tags} />
          </ApiClientLauncher>
        </div>
      </article>
      <DocsPager path="/docs/api-reference" />
    </DocsShell>
  );
}
