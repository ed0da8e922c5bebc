/**
 * The API's Idempotency-Key store (lib/api/idempotency.ts holds the rules; the SQL, one
 * statement each, is lib/queries/idempotency-keys.ts). Keys expire after 24 hours; the usage
 * retention job deletes them (lib/services/usage.ts).
 */
export {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  type IdempotencyScope,
} from "../queries/idempotency-keys";
