/** What every resolver receives: the running app, the caller, and the request's stage timer. */
import type { Accountability } from '../permissions/accountability.js';
import type { HubSubscription } from '../realtime/hub/subscription-sink.js';
import type { AccountApi, CallerApi, ItemsApi, SchemaAdminApi } from '../app/ports.js';
import type { CacheRegistry } from '../cache/cache-registry.js';
import type { AccessResolver } from '../permissions/access-resolver.js';
import type { PermissionStore } from '../permissions/permission-store.js';
import type { ServerInfoApi } from '../project/server-info.js';
import type { SubscriptionHub } from '../realtime/hub/subscription-hub.js';
import type { StageMarks } from '../engine/read/items-service.js';
import type { VersionsService } from '../engine/versions/versions-service.js';
import type { ClientInfo, CookieChange } from '../auth/auth-service.js';
import type { FilesService } from '../engine/files/files-service.js';

/**
 * What the GraphQL front end reaches: items and the system collections, schema admin, accounts, server info, and what
 * its schemas are built (and cached) from.
 */
export interface GraphQLApi extends ItemsApi, SchemaAdminApi, AccountApi, CallerApi, ServerInfoApi {
  access: AccessResolver;
  permissions: PermissionStore;
  caches: CacheRegistry;
  subscriptions: SubscriptionHub;
  /** Deletes of files remove their bytes too. */
  files: FilesService;
  versions: VersionsService;
}

export interface GraphQLContext {
  app: GraphQLApi;
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
  /** Over the GraphQL socket: its rights as they change (subscriptions follow them); absent over HTTP. */
  live?: LiveRights;
  /**
   * Over the GraphQL socket: ends the hold on events its subscribe message took (realtime/hub/event-hold.ts), called
   * once the operation's subscription is queued in the hub; absent over HTTP.
   */
  subscribed?: () => void;
}

/** A socket's rights while it lives (realtime/graphql-ws/connection-auth.ts). */
export interface LiveRights {
  /** Moves on whenever the rights change: a message read under older ones is not sent. */
  readonly generation: number;
  /** The rights as last resolved. */
  readonly accountability: Accountability | null;
  /** Re-resolves the rights if they are stale (a notice came); false: they ended and the socket is closing. */
  valid(always: boolean): Promise<boolean>;
  /** Moves `subscription` to the socket's rights whenever they change, until the returned call. */
  track(subscription: HubSubscription): () => void;
}

/** Where a GraphQL write came from, for its activity rows (the ip as authentication read it). */
export function auditClient(ctx: GraphQLContext): {
  ip: string | null;
  userAgent: string | null;
  origin: string | null;
} {
  return {
    ip: ctx.accountability.ip ?? ctx.client.ip,
    userAgent: ctx.client.userAgent,
    origin: ctx.client.origin ?? null,
  };
}
