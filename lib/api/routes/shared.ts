import { AppError } from "../../errors";

/** The token's user vanished after the token check (deleted account). */
export function accountGone(): AppError {
  return new AppError("invalid_token", "The access token's account no longer exists.");
}
