import type { ReactNode } from "react";
import { Icon, type IconName } from "./icon";

export type AlertTone = "info" | "success" | "warning" | "danger";

const TONES: Record<AlertTone, { box: string; icon: IconName; iconClass: string }> = {
  info: { box: "border-sky-200 bg-sky-50 text-sky-900", icon: "info", iconClass: "text-sky-600" },
  success: { box: "border-emerald-200 bg-emerald-50 text-emerald-900", icon: "check", iconClass: "text-emerald-600" },
  warning: { box: "border-amber-200 bg-amber-50 text-amber-900", icon: "alert", iconClass: "text-amber-600" },
  danger: { box: "border-red-200 bg-red-50 text-red-900", icon: "ban", iconClass: "text-red-600" },
};

export function Alert({
  tone = "info",
  title,
  children,
  role,
}: {
  tone?: AlertTone;
  title?: ReactNode;
  children?: ReactNode;
  role?: "status" | "alert";
}) {
  const t = TONES[tone];
  return (
    <div className={`flex gap-3 rounded-xl border px-4 py-3 ${t.box}`} role={role}>
      <Icon name={t.icon} className={`mt-0.5 size-5 shrink-0 ${t.iconClass}`} />
      <div className="min-w-0 text-sm break-words">
        {title ? <p className="font-semibold">{title}</p> : null}
        {children ? <div className={title ? "mt-1" : ""}>{children}</div> : null}
      </div>
    </div>
  );
}
