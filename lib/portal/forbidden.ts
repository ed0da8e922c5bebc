import { headers } from "next/headers";
import { clientIdSchema } from "@/lib/schemas/apps";
import { capabilities } from "@/lib/services/app-access";
import { getAppForViewer } from "@/lib/services/apps";
import { getCurrentUser, toActor } from "./session";

/**
 * Why a page answered 403 ("403s name the real reason"), for app/forbidden.tsx. forbidden()
 * carries nothing to the 403 page, which renders outside the page that called it; it learns the
 * path from proxy.ts (`x-pathname`, set on every request) and works the reason out again from the
 * same rules the page used. Null: the admin area's reason.
 */
export interface ForbiddenReason {
  title: string;
  message: string;
  back: { href: string; label: string };
}

const APP_EDIT = /^\/apps\/([^/]+)\/edit$/;

export async function forbiddenReason(): Promise<ForbiddenReason | null> {
  const path = (await headers()).get("x-pathname") ?? "";
  const clientId = clientIdSchema.safeParse(APP_EDIT.exec(path)?.[1]);
  if (!clientId.success) return null;
  const user = await getCurrentUser();
  if (!user) return null;
  const actor = await toActor(user);
  const app = await getAppForViewer(clientId.data, actor).catch(() => null);
  if (!app || capabilities(app, actor).manage) return null;
  // The edit form's refusal: a viewer on the team.
  return {
    title: "Viewers cannot edit this app",
    message: `You are a viewer on ${app.name}: you can read its settings and usage but not change them. Ask the owner, @${app.owner.handle}, to make you a team admin.`,
    back: { href: `/apps/${app.clientId}`, label: `Back to ${app.name}` },
  };
}
