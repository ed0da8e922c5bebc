import { accountStatsSchema } from "../../schemas/stats";
import { findAccountStats } from "../../services/stats";
import { defineRoute } from "../handler";
import { serializeAccountStats } from "../serialize/stats";
import { accountGone } from "./shared";

/** SPEC.md endpoints of the stats resource (declarations only; lib/api/routes/index.ts lists them all). */

export const getMyStats = defineRoute({
  method: "GET",
  path: "/me/stats",
  operationId: "getMyStats",
  mcp: { tool: "get_my_stats" },
  summary: "Get the signed-in user's account statistics",
  description: "Statistics of all seven kinds and the aggregate scores. A user without statistics yet gets empty members.",
  tag: "Me",
  auth: "user",
  scope: "svc:stats.read",
  response: { status: 200, schema: accountStatsSchema, description: "Account statistics." },
  errors: [],
  async handler({ caller }) {
    const stats = await findAccountStats(caller.userId, caller);
    if (!stats) throw accountGone();
    return serializeAccountStats(stats);
  },
});
