/**
 * Extensions (Directus's names): the folder they are loaded from, reload on change, and the bounds Strata puts on
 * them (a filter hook's time, an endpoint's time to answer).
 */
import { bool, duration, str, type Env } from './env-values.js';

export interface ExtensionsConfig {
  /** EXTENSIONS_PATH (default ./extensions): a folder per extension (package.json with `directus:extension`). */
  path: string;
  /** EXTENSIONS_AUTO_RELOAD (default false): reload the extensions when a file under the path changes. */
  autoReload: boolean;
  /** EXTENSIONS_FILTER_TIMEOUT (default 5s): a filter hook that takes longer refuses the write (503). */
  filterTimeoutMs: number;
  /** EXTENSIONS_ENDPOINT_TIMEOUT (default 30s): an endpoint that has not answered by then answers 503. */
  endpointTimeoutMs: number;
}

export function readExtensionsConfig(env: Env): ExtensionsConfig {
  return {
    path: str(env, 'EXTENSIONS_PATH') ?? './extensions',
    autoReload: bool(env, 'EXTENSIONS_AUTO_RELOAD', false),
    filterTimeoutMs: duration(env, 'EXTENSIONS_FILTER_TIMEOUT', '5s'),
    endpointTimeoutMs: duration(env, 'EXTENSIONS_ENDPOINT_TIMEOUT', '30s'),
  };
}
