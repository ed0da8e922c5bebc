"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition, type FormEvent } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { cancelTransferAction, removeMemberAction, setMemberAction, transferAppAction } from "@/lib/actions/app-members";

export interface TeamPerson {
  handle: string;
  displayName: string;
  role: "owner" | "admin" | "viewer";
}

const ROLE_TEXT = {
  owner: "Owner",
  admin: "Team admin · manages everything but deleting and transferring",
  viewer: "Viewer · read-only",
} as const;

/**
 * The app's team: the owner, team admins and viewers. The owner (and platform admins)
 * add people by handle, change roles, remove them and transfer the app; a member may leave. Every
 * button is backed by the service's own role check: hiding one is a courtesy, not the rule.
 */
export function TeamPanel({
  clientId,
  appName,
  people,
  viewerHandle,
  canManageTeam,
  transferTo,
  canRollSecrets = false,
}: {
  clientId: string;
  appName: string;
  people: TeamPerson[];
  viewerHandle: string;
  canManageTeam: boolean;
  /** The person a transfer is offered to, waiting for their answer. */
  transferTo: string | null;
  /** The viewer may roll the app's secrets: a removed team admin's access is then worth rolling. */
  canRollSecrets?: boolean;
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [handle, setHandle] = useState("");
  const [role, setRole] = useState<"admin" | "viewer">("viewer");
  const [error, setError] = useState<string | null>(null);
  const [offerTo, setOfferTo] = useState<string | null>(null);
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

  function remove(person: string) {
    const self = person === viewerHandle;
    startTransition(async () => {
      const result = await removeMemberAction(clientId, person);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      if (result.data.rollSecrets && canRollSecrets && !self) {
        // They could read the client secrets, so they may have kept one.
        toast.warning(`Removed @${person}. They could see this app's client secrets: roll them so a copy stops working.`, {
          duration: Infinity,
          action: { label: "Roll the secret", onClick: () => router.push(`/apps/${clientId}#client-secrets`) },
        });
      } else {
        toast.success(self ? `You left ${appName}` : `Removed @${person}`);
      }
      if (self && !canManageTeam) router.push("/apps");
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
    // Laid out by the panel's own width, not the window's: in the app page's side column a
    // member's row stacks rather than crushing the name into a sliver.
    <div className="@container space-y-5">
      <ul className="divide-y divide-slate-100" aria-label="Team members">
        {people.map((person) => (
          <li key={person.handle} className="flex flex-col gap-2 py-3 @md:flex-row @md:items-center @md:justify-between">
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
                      <option value="admin">Team admin</option>
                      <option value="viewer">Viewer</option>
                    </select>
                    <Button variant="secondary" size="sm" disabled={pending} onClick={() => setOfferTo(person.handle)}>
                      Make owner
                    </Button>
                  </>
                ) : null}
                {canManageTeam || person.handle === viewerHandle ? (
                  <Button
                    variant="danger-outline"
                    size="sm"
                    disabled={pending}
                    onClick={() => remove(person.handle)}
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
        <form onSubmit={add} className="border-t border-slate-100 pt-4" noValidate>
          <div className="flex flex-col gap-3 @md:flex-row @md:items-end">
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
                <option value="admin">Team admin</option>
              </select>
            </div>
            <Button type="submit" loading={pending} disabled={!handle.trim()}>
              <Icon name="plus" /> Add
            </Button>
          </div>
          {/* Under the whole row: an error does not push Role and Add out of line. */}
          {error ? (
            <p id={errorId} className="mt-2 text-sm break-words text-red-700">
              {error}
            </p>
          ) : null}
        </form>
      ) : null}

      {transferTo ? (
        <div
          role="status"
          className="flex flex-col gap-2 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 sm:flex-row sm:items-center sm:justify-between"
          data-testid="transfer-waiting"
        >
          <p className="break-words">Offered to @{transferTo}: nothing changes until they accept it.</p>
          {canManageTeam ? (
            <Button variant="secondary" size="sm" disabled={pending} onClick={() => run(() => cancelTransferAction(clientId), "Offer withdrawn")}>
              Withdraw offer
            </Button>
          ) : null}
        </div>
      ) : null}

      <Dialog
        open={offerTo !== null}
        onClose={() => (pending ? undefined : setOfferTo(null))}
        title={`Offer ${appName} to @${offerTo ?? ""}?`}
        description="Nothing changes until they accept it in their apps list. Then the new owner can delete the app and manage its team, and the current owner stays on the team as an admin. An approved app's new owner waits for an admin's review: until then the consent page keeps naming the current owner."
        footer={
          <>
            <Button variant="secondary" onClick={() => setOfferTo(null)} disabled={pending}>
              Cancel
            </Button>
            <Button
              variant="danger"
              loading={pending}
              onClick={() =>
                run(
                  () => transferAppAction(clientId, offerTo),
                  `Offered ${appName} to @${offerTo}: they accept it in their apps list`,
                  () => setOfferTo(null),
                )
              }
            >
              Offer the app
            </Button>
          </>
        }
      />
    </div>
  );
}
