/**
 * Where the service reads the time for what expires: access tokens, sessions, login liveness and TFA windows.
 * The system clock in production; tests inject one they move forward instead of sleeping until a token expires.
 */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
