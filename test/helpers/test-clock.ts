/** A clock for tests: the system time plus however far the test has moved it forward (expiry without sleeping). */
import type { Clock } from '../../src/config/clock.js';

export class TestClock implements Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Moves the time the app sees forward by `ms`. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
