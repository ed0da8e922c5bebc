import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { AppView } from "@/lib/schemas/apps";

const STATUS: Record<AppView["status"], { tone: BadgeTone; label: string }> = {
  pending: { tone: "amber", label: "Pending review" },
  approved: { tone: "green", label: "Approved" },
  rejected: { tone: "red", label: "Rejected" },
  suspended: { tone: "neutral", label: "Suspended" },
};

export function AppStatusBadge({ status }: { status: AppView["status"] }) {
  const s = STATUS[status];
  return (
    <Badge tone={s.tone} dot>
      {s.label}
    </Badge>
  );
}
