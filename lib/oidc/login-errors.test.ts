import { describe, expect, it } from "vitest";
import { describeRetryWait, isLoginError, loginErrorMessage } from "./login-errors";

const NOW = 1_750_000_000;

describe("describeRetryWait", () => {
  it("says the throttle's real wait, rounded up to whole minutes", () => {
    expect(describeRetryWait(NOW + 14 * 60 + 1, NOW)).toBe("Too many failed sign-in attempts. Try again in 15 minutes.");
    expect(describeRetryWait(NOW + 3 * 60, NOW)).toBe("Too many failed sign-in attempts. Try again in 3 minutes.");
    expect(describeRetryWait(NOW + 61, NOW)).toBe("Too many failed sign-in attempts. Try again in 2 minutes.");
    expect(describeRetryWait(NOW + 60, NOW)).toBe("Too many failed sign-in attempts. Try again in 1 minute.");
  });

  it("counts seconds in the last minute, and says when the wait is over", () => {
    expect(describeRetryWait(NOW + 42, NOW)).toBe("Too many failed sign-in attempts. Try again in 42 seconds.");
    expect(describeRetryWait(NOW + 1, NOW)).toBe("Too many failed sign-in attempts. Try again in 1 second.");
    expect(describeRetryWait(NOW, NOW)).toBe("Too many failed sign-in attempts. You can try again now.");
    expect(describeRetryWait(NOW - 600, NOW)).toBe("Too many failed sign-in attempts. You can try again now.");
  });

  it("without a usable time it claims no fixed wait", () => {
    for (const retryAt of [null, Number.NaN, NOW + 2 * 24 * 60 * 60]) {
      expect(describeRetryWait(retryAt, NOW)).toBe("Too many failed sign-in attempts. Wait a few minutes, then try again.");
    }
  });
});

describe("loginErrorMessage", () => {
  it("one generic message for a wrong user or password; only known codes are errors", () => {
    expect(loginErrorMessage("invalid_credentials", null, NOW)).toBe("Incorrect username or password.");
    expect(loginErrorMessage("too_many_attempts", NOW + 300, NOW)).toContain("Try again in 5 minutes");
    expect(isLoginError("account_disabled")).toBe(true);
    expect(isLoginError("<script>")).toBe(false);
    expect(isLoginError(["invalid_credentials"])).toBe(false);
  });
});
