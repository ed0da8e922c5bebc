import { buttonClasses } from "@/components/ui/button";
import { inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";

/** An admin list's search box: a GET form to `action` with `q`, so a search survives a reload and a shared link. */
export function AdminSearch({ action, id, label, placeholder, value }: { action: string; id: string; label: string; placeholder: string; value: string | undefined }) {
  return (
    <form role="search" action={action} method="get" className="flex w-full gap-2 sm:w-auto">
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <div className="relative flex-1 sm:w-72">
        <Icon name="search" className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-500" />
        <input id={id} name="q" type="search" defaultValue={value ?? ""} placeholder={placeholder} className={`${inputClasses} pl-9`} />
      </div>
      <button type="submit" className={buttonClasses("secondary")}>
        Search
      </button>
    </form>
  );
}
