"use client";

import Link from "next/link";
import { useId, useState, useTransition } from "react";
import { toast } from "sonner";
import { triggerSandboxEventAction } from "@/lib/actions/sandboxes";
import { Button } from "@/components/ui/button";
import { inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";

/**
 * "Trigger event": one event of the chosen type with synthetic data, in this app's sandbox
 * only; it reaches the app's sandbox webhook endpoints and sandbox event streams like any other.
 */
export function SandboxTriggerEvent({ clientId, types }: { clientId: string; types: { type: string; description: string }[] }) {
  const [type, setType] = useState(types[0]?.type ?? "");
  const [last, setLast] = useState<{ type: string; eventId: string } | null>(null);
  const [pending, startTransition] = useTransition();
  const selectId = useId();
  const description = types.find((t) => t.type === type)?.description;

  function trigger() {
    startTransition(async () => {
      const result = await triggerSandboxEventAction(clientId, type);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setLast({ type, eventId: result.data.eventId });
      toast.success(`Triggered ${type}`);
    });
  }

  return (
    <div className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_auto] sm:items-end">
        <div className="min-w-0">
          <label htmlFor={selectId} className="block text-sm font-medium text-slate-900">
            Event type
          </label>
          <select id={selectId} value={type} onChange={(e) => setType(e.target.value)} className={`${inputClasses} mt-1`}>
            {types.map((t) => (
              <option key={t.type} value={t.type}>
                {t.type}
              </option>
            ))}
          </select>
        </div>
        <Button variant="secondary" onClick={trigger} loading={pending} disabled={!type}>
          <Icon name="zap" /> Trigger event
        </Button>
      </div>
      {description ? <p className="text-sm text-slate-600">{description}</p> : null}
      {last ? (
        <p role="status" className="text-sm break-words text-slate-900" data-testid="triggered-event">
          Triggered <code className="font-mono">{last.type}</code>, event <code className="font-mono break-all">{last.eventId}</code>.{" "}
          <Link href={`/apps/${clientId}/webhooks#delivery-log`} prefetch={false} className="underline">
            Delivery log
          </Link>
        </p>
      ) : null}
    </div>
  );
}
