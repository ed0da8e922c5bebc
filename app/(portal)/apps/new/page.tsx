import type { Metadata } from "next";
import Link from "next/link";
import { AppForm } from "@/components/apps/app-form";
import { Icon } from "@/components/ui/icon";
import { PageHeader } from "@/components/ui/page-header";
import { requireUser } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Register an application" };

export default async function NewAppPage() {
  await requireUser();
  return (
    <div className="mx-auto max-w-3xl space-y-8">
      <PageHeader
        eyebrow={
          <Link href="/apps" className="inline-flex items-center gap-1 hover:text-slate-900">
            <Icon name="arrowLeft" /> My apps
          </Link>
        }
        title="Register an application"
        description="An admin reviews it before it can get tokens. You can change everything but the type later."
      />
      <AppForm />
    </div>
  );
}
