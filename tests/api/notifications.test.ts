import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "./support";

/** SPEC.md GET /me/notifications, "Notification", Limits; the per-type optional fields we designed. */
let api: Api;
let user: { id: number; handle: string };
let token: string;
let sender: { id: number; handle: string };
const TOTAL = 23;

beforeAll(async () => {
  api = await startApi();
  user = await api.createUser();
  sender = await api.createUser({ displayName: "Sender Person" });
  token = await api.token({ user: user.handle, scopes: ["svc:notifications.read"] });
  // 23 notifications, one per minute, cycling through the six types; every optional column set,
  // so the serializer alone decides which fields a type shows.
  const types = ["poke", "friend_request", "achievement", "guild_invite", "mention", "system"];
  for (let i = 0; i < TOTAL; i++) {
    await api.sql(
      `INSERT INTO "Notification" ("userId", type, read, "fromUserId", count, "guildName", message, "createdAt")
       VALUES ($1, $2, $3, $4, 2, 'Guild X', 'hello', timestamp '2026-05-01 00:00:00' + $5 * interval '1 minute')`,
      [user.id, types[i % types.length], i % 2 === 0, sender.id, i],
    );
  }
});
afterAll(async () => {
  await api?.stop();
});

const list = (query = "") => api.call(`/me/notifications${query}`, { token });

describe("paging", () => {
  it("defaults to limit 10, page 1, newest first, with has_more", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    const { notifications, page, limit, has_more } = res.body.data;
    expect({ page, limit, has_more }).toEqual({ page: 1, limit: 10, has_more: true });
    expect(notifications).toHaveLength(10);
    const times = notifications.map((n: { created_at: number }) => n.created_at);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(times[0]).toBe(Date.UTC(2026, 4, 1, 0, TOTAL - 1) / 1000);
  });

  it("walks the pages without gaps or duplicates and has_more is exact", async () => {
    const p2 = (await list("?page=2")).body.data;
    const p3 = (await list("?page=3")).body.data;
    const p4 = (await list("?page=4")).body.data;
    expect(p2.notifications).toHaveLength(10);
    expect(p2.has_more).toBe(true);
    expect(p3.notifications).toHaveLength(3);
    expect(p3.has_more).toBe(false);
    expect(p4).toEqual({ notifications: [], page: 4, limit: 10, has_more: false });
    const all = [...(await list()).body.data.notifications, ...p2.notifications, ...p3.notifications];
    expect(new Set(all.map((n: { created_at: number }) => n.created_at)).size).toBe(TOTAL);
  });

  it("has_more is false when the last page is exactly full", async () => {
    const res = await list("?limit=23");
    expect(res.body.data.notifications).toHaveLength(23);
    expect(res.body.data.has_more).toBe(false);
    const half = await list("?limit=1&page=23");
    expect(half.body.data.has_more).toBe(false);
    expect((await list("?limit=1&page=22")).body.data.has_more).toBe(true);
  });

  it("accepts every limit from 1 to 50", async () => {
    for (const limit of [1, 7, 50]) {
      const res = await list(`?limit=${limit}`);
      expect(res.body.data.limit).toBe(limit);
      expect(res.body.data.notifications).toHaveLength(Math.min(limit, TOTAL));
    }
  });

  it("falls back to limit 10 for a value outside [1, 50] or not an integer", async () => {
    for (const bad of ["0", "51", "-1", "1000000000000", "abc", "2.5", "", "1e1", "%20", "10&limit=20"]) {
      const res = await list(`?limit=${bad}`);
      expect(res.status, bad).toBe(200);
      expect(res.body.data.limit, bad).toBe(10);
      expect(res.body.data.notifications).toHaveLength(10);
    }
  });

  it("falls back to page 1 for a page that is not a positive integer", async () => {
    for (const bad of ["0", "-3", "x", "1.5", "", "99999999999"]) {
      const res = await list(`?page=${bad}`);
      expect(res.status, bad).toBe(200);
      expect(res.body.data.page, bad).toBe(1);
    }
  });

  it("is empty for a user without notifications", async () => {
    const other = await api.createUser();
    const res = await api.call("/me/notifications", { token: await api.token({ user: other.handle }) });
    expect(res.body.data).toEqual({ notifications: [], page: 1, limit: 10, has_more: false });
  });

  it("only shows the token user's notifications", async () => {
    const res = await list("?limit=50");
    expect(res.body.data.notifications).toHaveLength(TOTAL);
  });

  it("never lists the account's security notices (portal only), wherever they fall in the order", async () => {
    // A new device, a second factor set up or removed — the person's own, never an app's to read.
    for (const at of ["2026-05-01 00:05:30", "2026-06-01 00:00:00"]) {
      await api.sql(
        `INSERT INTO "Notification" ("userId", type, read, message, "createdAt") VALUES ($1, 'security', false, 'A new device signed in', timestamp '${at}')`,
        [user.id],
      );
    }
    const all = (await list("?limit=50")).body.data.notifications as { type: string }[];
    expect(all).toHaveLength(TOTAL);
    expect(all.map((n) => n.type)).not.toContain("security");
    const [events] = await api.sql<{ n: number }>(`SELECT count(*)::int AS n FROM "Event" WHERE type = 'notification.created' AND data->>'type' = 'security'`);
    expect(events!.n).toBe(0);
  });

  it("never lists developer notices (app_review, portal only) nor sends them to apps: they can name a webhook URL with its query string", async () => {
    const message = "A webhook endpoint of your app was disabled: its receiver answered 410 Gone (https://hooks.example/in?token=s3cret).";
    for (const at of ["2026-05-01 00:05:30", "2026-06-01 00:00:00"]) {
      await api.sql(`INSERT INTO "Notification" ("userId", type, read, message, "createdAt") VALUES ($1, 'app_review', false, $2, timestamp '${at}')`, [user.id, message]);
    }
    const all = (await list("?limit=50")).body.data.notifications as { type: string }[];
    expect(all).toHaveLength(TOTAL);
    expect(all.map((n) => n.type)).not.toContain("app_review");
    const [events] = await api.sql<{ n: number }>(`SELECT count(*)::int AS n FROM "Event" WHERE type = 'notification.created' AND data->>'type' = 'app_review'`);
    expect(events!.n).toBe(0);
  });
});

describe("fields per type", () => {
  const from = () => ({ handle: sender.handle, display_name: "Sender Person", avatar_url: `https://img.example/${sender.handle}.png` });

  it("shows exactly the optional fields each type carries", async () => {
    const all = (await list("?limit=50")).body.data.notifications as Record<string, unknown>[];
    const byType = new Map(all.map((n) => [n.type, n]));
    expect(byType.size).toBe(6);
    const base = (n: Record<string, unknown>) => ({ type: n.type, read: expect.any(Boolean), created_at: expect.any(Number) });
    expect(byType.get("poke")).toEqual({ ...base(byType.get("poke")!), from: from(), count: 2 });
    expect(byType.get("friend_request")).toEqual({ ...base(byType.get("friend_request")!), from: from() });
    expect(byType.get("achievement")).toEqual({ ...base(byType.get("achievement")!), message: "hello" });
    expect(byType.get("guild_invite")).toEqual({ ...base(byType.get("guild_invite")!), from: from(), guild_name: "Guild X" });
    expect(byType.get("mention")).toEqual({ ...base(byType.get("mention")!), from: from(), message: "hello", count: 2 });
    expect(byType.get("system")).toEqual({ ...base(byType.get("system")!), message: "hello" });
  });

  it("reports read state", async () => {
    const all = (await list("?limit=50")).body.data.notifications as { read: boolean }[];
    expect(all.filter((n) => n.read)).toHaveLength(12);
  });

  it("omits from when the sender's account is gone", async () => {
    const gone = await api.createUser();
    const other = await api.createUser();
    await api.sql(`INSERT INTO "Notification" ("userId", type, "fromUserId") VALUES ($1, 'friend_request', $2)`, [other.id, gone.id]);
    await api.sql(`DELETE FROM "User" WHERE id = $1`, [gone.id]);
    const res = await api.call("/me/notifications", { token: await api.token({ user: other.handle }) });
    expect(res.body.data.notifications[0]).toEqual({ type: "friend_request", read: false, created_at: expect.any(Number) });
  });
});
