import type { Metadata } from "next";
import { cookies } from "next/headers";
import { INTERACTION_COOKIE } from "@/lib/oidc/constants";
import { findInteractionView } from "@/lib/oidc/interaction-view";
import { ConsentForm } from "../_components/consent-form";
import { ExpiredCard } from "../_components/expired-card";
import { LoginForm } from "../_components/login-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

/**
 * Hosted login and consent (STYLE: app/interaction/[uid], render only). The interaction is looked
 * up read-only by uid; its details are shown only to the browser holding its cookie.
 */
export default async function InteractionPage({
  params,
  searchParams,
}: {
  params: Promise<{ uid: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { uid } = await params;
  const query = await searchParams;
  const error = typeof query.error === "string" ? query.error : undefined;
  const jar = await cookies();
  if (jar.get(INTERACTION_COOKIE)?.value !== uid) return <ExpiredCard />;
  const view = await findInteractionView(uid);
  if (!view) return <ExpiredCard />;
  if (view.prompt === "login") return <LoginForm uid={uid} clientName={view.client.name} error={error} />;
  return (
    <ConsentForm
      uid={uid}
      clientName={view.client.name}
      ownerHandle={view.client.ownerHandle}
      account={view.account}
      scopes={view.scopes}
    />
  );
}
