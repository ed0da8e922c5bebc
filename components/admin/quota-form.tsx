"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import { setAppQuotaAction } from "@/lib/actions/admin";
import { Button } from "@/components/ui/button";
import { describedBy, Field, inputClasses } from "@/components/ui/field";
import { DEFAULT_REQUESTS_PER_MINUTE, requestQuotaSchema } from "@/lib/schemas/rate-limits";

/**
 * An admin's setting of an app's API request quota. The server checks the admin role,
 * audits the change and announces it, so every process enforces the new quota at once.
 */
export function QuotaForm({ clientId, perMinute, custom }: { clientId: string; perMinute: number; custom: boolean }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [value, setValue] = useState(String(perMinute));
  const [error, setError] = useState<string>();
  const id = `quota-${clientId}`;

  function save(perMinuteValue: string | null) {
    const parsed = requestQuotaSchema.safeParse({ perMinute: perMinuteValue });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    startTransition(async () => {
      const result = await setAppQuotaAction(clientId, parsed.data);
      if (!result.ok) {
        setError(result.error.fields?.perMinute ?? result.error.message);
        return;
      }
      setValue(String(result.data.requestsPerMinute));
      toast.success(`Quota set to ${result.data.requestsPerMinute.toLocaleString("en-US")} requests per minute`, {
        description: "Every server process applies it at once.",
      });
      router.refresh();
    });
  }

  return (
    <form
      className="space-y-3"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        save(value);
      }}
    >
      <Field
        id={id}
        label="Requests per minute"
        hint={`Over it, the app's API calls get 429 rate_limited until the minute ends. Default ${DEFAULT_REQUESTS_PER_MINUTE.toLocaleString("en-US")}.`}
        error={error}
      >
        <input
          id={id}
          name="perMinute"
          type="number"
          inputMode="numeric"
          min={1}
          className={`${inputClasses} max-w-48`}
          value={value}
          onChange={(event) => setValue(event.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, { hint: true, error: Boolean(error) })}
        />
      </Field>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" size="sm" disabled={pending}>
          Save quota
        </Button>
        {custom ? (
          <Button type="button" size="sm" variant="secondary" disabled={pending} onClick={() => save(null)}>
            Use the default
          </Button>
        ) : null}
      </div>
    </form>
  );
}
