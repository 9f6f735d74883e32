/** The API documentation settings: the /docs page and the server URL the OpenAPI document announces. */
import { bool, ConfigError, str, type Env } from './env-values.js';

export interface DocsConfig {
  /** Serve the API reference page at /docs (DOCS_ENABLED, default true). */
  enabled: boolean;
  /** The address clients reach Strata at (PUBLIC_URL), or '/' (the document's own origin) when unset. */
  publicUrl: string;
}

export function readDocsConfig(env: Env): DocsConfig {
  const publicUrl = str(env, 'PUBLIC_URL') ?? '/';
  if (publicUrl !== '/') {
    try {
      const url = new URL(publicUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    } catch {
      throw new ConfigError(
        'PUBLIC_URL',
        `expected an absolute http(s) URL such as https://api.example.com, got "${publicUrl}"`,
      );
    }
  }
  return {
    enabled: bool(env, 'DOCS_ENABLED', true),
    publicUrl: publicUrl === '/' ? '/' : publicUrl.replace(/\/+$/, ''),
  };
}
