import { TableScroll } from "@/components/ui/table-scroll";
import { InlineMarkdown } from "./inline-markdown";
import type { ApiField, ApiOperation } from "./openapi-operations";

/** Method colours with at least 4.5:1 on their tint (WCAG AA). */
const METHOD_CLASSES: Record<string, string> = {
  GET: "bg-sky-50 text-sky-800 ring-sky-200",
  POST: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  PUT: "bg-amber-50 text-amber-800 ring-amber-200",
  PATCH: "bg-amber-50 text-amber-800 ring-amber-200",
  DELETE: "bg-red-50 text-red-800 ring-red-200",
};

export function tagAnchor(tag: string): string {
  return `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
}

function Fields({ label, fields }: { label: string; fields: ApiField[] }) {
  return (
    <>
      <h4 className="mt-5 text-sm font-semibold text-slate-900">{label}</h4>
      <TableScroll label={label}>
        <table className="min-w-[32rem]">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">In</th>
              <th scope="col">Type</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {fields.map((f) => (
              <tr key={`${f.where}-${f.name}`}>
                <td>
                  <code>{f.name}</code>
                  {f.required ? <span className="ml-1 text-xs text-red-700">required</span> : null}
                </td>
                <td>{f.where}</td>
                <td className="break-all">
                  <code>{f.type}</code>
                </td>
                <td>
                  <InlineMarkdown text={f.description} className="my-0" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </>
  );
}

function Operation({ op }: { op: ApiOperation }) {
  return (
    <section aria-labelledby={op.anchor} className="scroll-mt-24 rounded-xl border border-slate-200 bg-white p-4 sm:p-6" data-testid="api-operation">
      <h3 id={op.anchor} className="mt-0 mb-0 flex scroll-mt-24 flex-wrap items-baseline gap-x-3 gap-y-1">
        <span className={`rounded-md px-2 py-0.5 font-mono text-xs font-bold ring-1 ring-inset ${METHOD_CLASSES[op.method] ?? "bg-slate-100 text-slate-800 ring-slate-200"}`}>
          {op.method}
        </span>
        <code className="font-mono text-sm break-all">{op.path}</code>
        <span className="basis-full text-base">{op.summary}</span>
      </h3>
      <InlineMarkdown text={op.description} />
      {op.scopes.length > 0 ? (
        <p>
          Scopes:{" "}
          {op.scopes.map((s, i) => (
            <span key={s}>
              {i > 0 ? ", " : null}
              <code>{s}</code>
            </span>
          ))}
        </p>
      ) : null}
      {op.parameters.length > 0 ? <Fields label={`Parameters of ${op.method} ${op.path}`} fields={op.parameters} /> : null}
      {op.body.length > 0 ? <Fields label={`Request body of ${op.method} ${op.path}`} fields={op.body} /> : null}
      <h4 className="mt-5 text-sm font-semibold text-slate-900">Responses</h4>
      <ul className="list-none! pl-0!">
        {op.responses.map((r) => (
          <li key={r.status} className="flex gap-3">
            <code className={`h-fit shrink-0 ${r.status.startsWith("2") ? "text-emerald-800!" : "text-red-800!"}`}>{r.status}</code>
            <span className="min-w-0">
              {r.description.split("`").map((part, j) => (j % 2 === 1 ? <code key={j}>{part}</code> : part))}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * The API reference rendered on the server from the OpenAPI document: readable without JavaScript
 * and before (or instead of) the interactive client. Operations grouped by tag, in the document's order.
 */
export function ApiOperations({ operations, tags }: { operations: ApiOperation[]; tags: { name: string; description?: string }[] }) {
  return (
    <>
      {tags.map((tag) => {
        const ops = operations.filter((op) => op.tag === tag.name);
        if (ops.length === 0) return null;
        return (
          <section key={tag.name} aria-labelledby={tagAnchor(tag.name)}>
            <h2 id={tagAnchor(tag.name)}>{tag.name}</h2>
            {tag.description ? <InlineMarkdown text={tag.description} /> : null}
            <div className="space-y-6">
              {ops.map((op) => (
                <Operation key={op.anchor} op={op} />
              ))}
            </div>
          </section>
        );
      })}
    </>
  );
}
