import type { DirectoryIdentityView } from "../../schemas/directory";
import type { DirectoryIdentityRecord } from "../../services/directory";
import { publicUrl } from "../../schemas/wire";

export function serializeIdentity(r: DirectoryIdentityRecord): DirectoryIdentityView {
  return {
    handle: r.handle,
    display_name: r.displayName,
    avatar_url: publicUrl(r.avatarUrl),
    // A user without a separate thumbnail gets the full avatar rather than an empty URL.
    avatar_url_small: publicUrl(r.avatarUrlSmall || r.avatarUrl),
  };
}
