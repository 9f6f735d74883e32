/** What every resolver receives: the running app, the caller, and the request's stage timer. */
import type { Accountability } from '../permissions/accountability.js';
import type { AppContext } from '../services/app-context.js';
import type { StageMarks } from '../services/items-service.js';
import type { ClientInfo, CookieChange } from '../services/auth-service.js';

export interface GraphQLContext {
  app: AppContext;
  accountability: Accountability;
  marks: StageMarks;
  client: ClientInfo;
  /** The request's cookies (refresh and session tokens for auth mutations). */
  cookies: Record<string, string | undefined>;
  /** SDL of the caller's schema for a scope (`server_specs_graphql`). */
  sdl(scope: 'items' | 'system'): Promise<string>;
  /** The caller's OpenAPI document (`server_specs_oas`). */
  oas(): Promise<unknown>;
  /** Cookies an auth mutation sets or clears; the route applies them to the reply. */
  cookieChanges: CookieChange[];
}
