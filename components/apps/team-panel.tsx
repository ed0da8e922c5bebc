"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition, type FormEvent } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { removeMemberAction, setMemberAction, transferAppAction } from "@/lib/actions/app-members";

export interface TeamPerson {
  handle: string;
  displayName: string;
  role: "owner" | "admin" | "viewer";
}

const ROLE_TEXT = {
  owner: "Owner",
  admin: "Admin · manages everything but deleting and transferring",
  viewer: "Viewer · read-only",
} as const;

/**
 * The app's team (issue 15): the owner, team admins and viewers. The owner (and platform admins)
 * add people by handle, change roles, remove them and transfer the app; a member may leave. Every
 * button is backed by the service's own role check: hiding one is a courtesy, not the rule.
 */
export function TeamPanel({
  clientId,
  appName,
  people,
  viewerHandle,
  canManageTeam,
}: {
  clientId: string;
  appName: string;
  people: TeamPerson[];
  viewerHandle: string;
  canManageTeam: boolean;
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [handle, setHandle] = useState("");
  const [role, setRole] = useState<"admin" | "viewer">("viewer");
  const [error, setError] = useState<string | null>(null);
  const [transferTo, setTransferTo] = useState<string | null>(null);
  const handleId = useId();
  const roleId = useId();
  const errorId = useId();

  function run(action: () => Promise<{ ok: boolean; error?: { message: string } }>, done: string, after?: () => void) {
    startTransition(async () => {
      const result = await action();
      if (!result.ok) {
        toast.error(result.error!.message);
        return;
      }
      toast.success(done);
      after?.();
      router.refresh();
    });
  }

  function add(event: FormEvent) {
    event.preventDefault();
    setError(null);
    startTransition(async () => {
      const result = await setMemberAction(clientId, { handle, role });
      if (!result.ok) {
        setError(result.error.fields?.handle ?? result.error.message);
        return;
      }
      toast.success(`${result.data.added ? "Added" : "Updated"} @${result.data.handle} as ${result.data.role}`);
      setHandle("");
      router.refresh();
    });
  }

  return (
    <div className="space-y-5">
      <ul className="divide-y divide-slate-100" aria-label="Team members">
        {people.map((person) => (
          <li key={person.handle} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
            <div className="min-w-0">
              <p className="text-sm font-medium break-words text-slate-900">
                {person.displayName} <span className="font-normal text-slate-600">@{person.handle}</span>
                {person.handle === viewerHandle ? <span className="font-normal text-slate-600"> (you)</span> : null}
              </p>
              <p className="text-xs text-slate-600">{ROLE_TEXT[person.role]}</p>
            </div>
            {person.role !== "owner" ? (
              <div className="flex shrink-0 flex-wrap items-center gap-2">
                {canManageTeam ? (
                  <>
                    <label className="sr-only" htmlFor={`${roleId}-${person.handle}`}>
                      Role of @{person.handle}
                    </label>
                    <select
                      id={`${roleId}-${person.handle}`}
                      className={`${inputClasses} w-auto py-1.5`}
                      value={person.role}
                      disabled={pending}
                      onChange={(e) =>
                        run(
                          () => setMemberAction(clientId, { handle: person.handle, role: e.target.value }),
                          `@${person.handle} is now ${e.target.value === "admin" ? "an admin" : "a viewer"}`,
                        )
                      }
                    >
                      <option value="admin">Admin</option>
                      <option value="viewer">Viewer</option>
                    </select>
                    <Button variant="secondary" size="sm" disabled={pending} onClick={() => setTransferTo(person.handle)}>
                      Make owner
                    </Button>
                  </>
                ) : null}
                {canManageTeam || person.handle === viewerHandle ? (
                  <Button
                    variant="danger-outline"
                    size="sm"
                    disabled={pending}
                    onClick={() =>
                      run(
                        () => removeMemberAction(clientId, person.handle),
                        person.handle === viewerHandle ? `You left ${appName}` : `Removed @${person.handle}`,
                        person.handle === viewerHandle && !canManageTeam ? () => router.push("/apps") : undefined,
                      )
                    }
                  >
                    {person.handle === viewerHandle ? "Leave" : "Remove"}
                  </Button>
                ) : null}
              </div>
            ) : null}
          </li>
        ))}
      </ul>

      {canManageTeam ? (
        <form onSubmit={add} className="flex flex-col gap-3 border-t border-slate-100 pt-4 sm:flex-row sm:items-end" noValidate>
          <div className="min-w-0 flex-1">
            <label htmlFor={handleId} className="block text-sm font-medium text-slate-700">
              Add a person by username
            </label>
            <input
              id={handleId}
              className={`${inputClasses} mt-1`}
              placeholder="e.g. carol"
              value={handle}
              onChange={(e) => setHandle(e.target.value)}
              autoComplete="off"
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? errorId : undefined}
            />
            {error ? (
              <p id={errorId} className="mt-1 text-sm text-red-700">
                {error}
              </p>
            ) : null}
          </div>
          <div>
            <label htmlFor={`${roleId}-new`} className="block text-sm font-medium text-slate-700">
              Role
            </label>
            <select
              id={`${roleId}-new`}
              className={`${inputClasses} mt-1 w-auto`}
              value={role}
              onChange={(e) => setRole(e.target.value as "admin" | "viewer")}
            >
              <option value="viewer">Viewer</option>
              <option value="admin">Admin</option>
            </select>
          </div>
          <Button type="submit" loading={pending} disabled={!handle.trim()}>
            <Icon name="plus" /> Add
          </Button>
        </form>
      ) : null}

      <Dialog
        open={transferTo !== null}
        onClose={() => (pending ? undefined : setTransferTo(null))}
        title={`Make @${transferTo ?? ""} the owner of ${appName}?`}
        description="The new owner can delete the app and manage its team. The current owner stays on the team as an admin. Only the new owner (or a platform admin) can undo this."
        footer={
          <>
            <Button variant="secondary" onClick={() => setTransferTo(null)} disabled={pending}>
              Cancel
            </Button>
            <Button
              variant="danger"
              loading={pending}
              onClick={() =>
                run(() => transferAppAction(clientId, transferTo), `@${transferTo} now owns ${appName}`, () => setTransferTo(null))
              }
            >
              Transfer ownership
            </Button>
          </>
        }
      />
    </div>
  );
}
