/** A login client a person authorized, as Connected apps, the admin's user page and the CLI show it. */
export interface ConnectedApp {
  clientId: string;
  name: string;
  description: string;
  /** The approved logo's file name (served at logoPath), or null. */
  logo: string | null;
  ownerHandle: string;
  ownerDisplayName: string;
  /** An AI agent's client: the domain of its client ID ("" for one that registered itself, which has none); null for a developer's app. */
  agentDomain: string | null;
  /** The scopes the person granted, sorted. */
  scopes: string[];
  authorizedAt: Date;
  lastUsedAt: Date | null;
}
