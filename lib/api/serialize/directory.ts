import type { DirectoryIdentityView } from "../../schemas/directory";
import type { DirectoryIdentityRecord } from "../../services/directory";

export function serializeIdentity(r: DirectoryIdentityRecord): DirectoryIdentityView {
  return {
    handle: r.handle,
    display_name: r.displayName,
    avatar_url: r.avatarUrl,
    // A user without a separate thumbnail gets the full avatar rather than an empty URL.
    avatar_url_small: r.avatarUrlSmall || r.avatarUrl,
  };
}
