import { db } from "../database/client";

/** GET /me/beetle: the raw state row (JSON columns are shaped by the serializer); null if never played. */
export async function findBeetleState(userId: number) {
  return db.beetleState.findUnique({ where: { userId } });
}

/** GET /me/beetle/cards: every discovered card, in discovery order. */
export async function listBeetleCards(userId: number) {
  return db.beetleCard.findMany({
    where: { userId },
    orderBy: [{ discoveredAt: "asc" }, { codename: "asc" }],
  });
}
