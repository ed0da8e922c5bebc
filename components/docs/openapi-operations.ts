/**
 * The parts of an OpenAPI 3.1 document (lib/api/openapi.ts) that the docs render on the server and
 * index for search. Structural and loose on purpose: components do not import lib/api, the page
 * passes the document in.
 */
interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  format?: string;
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
}

interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: SchemaObject }[];
  requestBody?: { content?: Record<string, { schema?: SchemaObject }> };
  responses?: Record<string, { description?: string }>;
}

export interface OpenApiDocumentLike {
  info: { title: string; version: string; description?: string };
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths?: Record<string, object | undefined>;
  components?: { schemas?: Record<string, unknown> };
}

export interface ApiField {
  name: string;
  where: string;
  type: string;
  required: boolean;
  description: string;
}

export interface ApiOperation {
  /** The anchor on the API reference page. */
  anchor: string;
  operationId: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
  description: string;
  scopes: string[];
  parameters: ApiField[];
  body: ApiField[];
  responses: { status: string; description: string }[];
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

function resolve(doc: OpenApiDocumentLike, schema: SchemaObject | undefined): SchemaObject | undefined {
  if (!schema?.$ref) return schema;
  const name = schema.$ref.replace("#/components/schemas/", "");
  return doc.components?.schemas?.[name] as SchemaObject | undefined;
}

function typeOf(doc: OpenApiDocumentLike, schema: SchemaObject | undefined): string {
  if (!schema) return "";
  if (schema.$ref) return schema.$ref.replace("#/components/schemas/", "");
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.map((v) => typeOf(doc, v)).join(" | ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "");
  if (type === "array") return `${typeOf(doc, schema.items)}[]`;
  return schema.format ? `${type} (${schema.format})` : type;
}

/** Operations in the order of the document's tags, then of its paths. */
export function listOperations(doc: OpenApiDocumentLike): ApiOperation[] {
  const operations: ApiOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown> | undefined)?.[method] as OperationObject | undefined;
      if (!op) continue;
      const operationId = op.operationId ?? `${method}-${path}`;
      const bodySchema = resolve(doc, op.requestBody?.content?.["application/json"]?.schema);
      operations.push({
        anchor: `operation-${operationId}`,
        operationId,
        method: method.toUpperCase(),
        path,
        tag: op.tags?.[0] ?? "Other",
        summary: op.summary ?? "",
        description: op.description ?? "",
        scopes: [...new Set((op.security ?? []).flatMap((s) => Object.values(s).flat()))],
        parameters: (op.parameters ?? []).map((p) => ({
          name: p.name,
          where: p.in,
          type: typeOf(doc, p.schema),
          required: p.required ?? false,
          description: p.description ?? p.schema?.description ?? "",
        })),
        body: Object.entries(bodySchema?.properties ?? {}).map(([name, schema]) => ({
          name,
          where: "body",
          type: typeOf(doc, schema),
          required: bodySchema?.required?.includes(name) ?? false,
          description: schema.description ?? resolve(doc, schema)?.description ?? "",
        })),
        responses: Object.entries(op.responses ?? {}).map(([status, r]) => ({ status, description: r.description ?? "" })),
      });
    }
  }
  const tagOrder = (doc.tags ?? []).map((t) => t.name);
  const rank = (tag: string) => (tagOrder.includes(tag) ? tagOrder.indexOf(tag) : tagOrder.length);
  return operations.sort((a, b) => rank(a.tag) - rank(b.tag));
}
