/**
 * The scope catalog (SPEC.md leaves descriptions open). Shared by the sign-in service, the API,
 * the portal's scope picker, the consent page, the CLI and the OpenAPI document.
 */
export const SVC_SCOPES = {
  "svc:stats.read": "Read your account statistics and scores",
  "svc:notifications.read": "Read your notifications",
  "svc:beetle.read": "Read your Beetle game progress and discovered cards",
  "svc:pokes.write": "Poke other people on your behalf",
  "svc:chat.read": "Read the global chat",
  "svc:chat.write": "Post to the global chat as you",
  "svc:directory.read": "Look people up in the user directory",
} as const;

export type SvcScope = keyof typeof SVC_SCOPES;
export const SVC_SCOPE_NAMES = Object.keys(SVC_SCOPES) as SvcScope[];

/** Scopes that only make sense with a user behind the token (an API client cannot use them). */
export const USER_ONLY_SCOPES: readonly SvcScope[] = [
  "svc:stats.read",
  "svc:notifications.read",
  "svc:beetle.read",
  "svc:pokes.write",
  "svc:chat.write",
];

export const OIDC_SCOPES = {
  openid: "Know who you are on the platform",
  profile: "See your display name and profile picture",
  offline_access: "Stay signed in to the app",
} as const;

export function isSvcScope(value: string): value is SvcScope {
  return Object.prototype.hasOwnProperty.call(SVC_SCOPES, value);
}

export function describeScope(scope: string): string {
  return (SVC_SCOPES as Record<string, string>)[scope] ?? (OIDC_SCOPES as Record<string, string>)[scope] ?? scope;
}
