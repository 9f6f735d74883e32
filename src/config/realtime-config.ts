/** Realtime fan-out settings (Strata's own; Directus has no equivalent). */
import { int, type Env } from './env-values.js';

export interface RealtimeConfig {
  /**
   * Item keys one subscription group remembers having shown (to send an item leaving its rules as a delete and one
   * entering them as a create); beyond it the least recently shown are forgotten (docs/design/realtime-fan-out.md).
   */
  shownKeysMax: number;
}

export function readRealtimeConfig(env: Env): RealtimeConfig {
  return { shownKeysMax: int(env, 'WEBSOCKETS_SUBSCRIPTION_KEYS_MAX', 10_000, 1, 10_000_000) };
}
