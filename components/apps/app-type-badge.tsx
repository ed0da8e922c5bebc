import { Badge } from "@/components/ui/badge";
import type { AppView } from "@/lib/schemas/apps";

export const APP_TYPE_LABELS: Record<AppView["type"], string> = {
  api: "API key client",
  login: "Login client",
  agent: "AI agent",
};

export function AppTypeBadge({ type }: { type: AppView["type"] }) {
  return <Badge tone={type === "api" ? "brand" : type === "agent" ? "neutral" : "sky"}>{APP_TYPE_LABELS[type]}</Badge>;
}
