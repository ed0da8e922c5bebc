import { listUsersQuerySchema, resolveBodySchema, resolveResultSchema, userPageSchema } from "../../schemas/directory";
import { listDirectoryUsers, resolveIdentifiers } from "../../services/directory";
import { worldOf } from "../auth";
import { defineRoute } from "../handler";
import { decodeUsersCursor, encodeUsersCursor } from "../pagination";
import { serializeIdentity } from "../serialize/directory";

/** SPEC.md endpoints of the directory resource (declarations only; lib/api/routes/index.ts lists them all). */

export const resolveRoute = defineRoute({
  method: "POST",
  path: "/directory/resolve",
  operationId: "resolveDirectoryIdentifiers",
  mcp: { tool: "resolve_directory", readOnly: true },
  summary: "Resolve identifiers to directory identities",
  description:
    "1 to 50 identifiers of type handle, x_handle, codehost or chatapp. Results keep the request order, echo each query, " +
    "and carry `identity: null` for a miss (including users hidden from the directory). More than 50, none, or an unknown type: 400 `invalid_request`.",
  tag: "Directory",
  auth: "any",
  scope: "svc:directory.read",
  body: resolveBodySchema,
  response: { status: 200, schema: resolveResultSchema, description: "One result per identifier, in order." },
  errors: ["invalid_request"],
  async handler({ body, caller }) {
    const identities = await resolveIdentifiers(body.identifiers, worldOf(caller), caller);
    return {
      results: body.identifiers.map((query, i) => {
        const identity = identities[i];
        return { query: { type: query.type, value: query.value }, identity: identity ? serializeIdentity(identity) : null };
      }),
    };
  },
});

export const listUsersRoute = defineRoute({
  method: "GET",
  path: "/users",
  operationId: "listDirectoryUsers",
  mcp: { tool: "list_users" },
  summary: "List directory-visible users",
  description:
    "A stable order (account creation) with opaque keyset cursors: pass `next_cursor` back as `cursor` until it is null. " +
    "Walking to the end returns every directory-visible user exactly once.",
  tag: "Directory",
  auth: "any",
  scope: "svc:directory.read",
  query: listUsersQuerySchema,
  response: { status: 200, schema: userPageSchema, description: "A page of users." },
  errors: ["invalid_request"],
  async handler({ query, caller }) {
    const afterId = query.cursor === undefined ? 0 : decodeUsersCursor(query.cursor);
    const { users, hasMore } = await listDirectoryUsers({ afterId, limit: query.limit, worldId: worldOf(caller), readAs: caller });
    const last = users[users.length - 1];
    return {
      users: users.map(serializeIdentity),
      next_cursor: hasMore && last ? encodeUsersCursor(last.id) : null,
    };
  },
});
