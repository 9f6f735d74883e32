/**
 * What the front ends (REST routes, GraphQL, the sockets, the CLI) need of the running app, in named parts shared by
 * several of them; a front end with a need of its own declares it next to itself. Each takes only the part it uses,
 * so its signature says what it reaches. `AppContext` (app-context.ts) is the whole app and satisfies every part.
 */
import type { InviteService } from '../auth/invite-service.js';
import type { PasswordResetService } from '../auth/password-reset-service.js';
import type { RegistrationService } from '../auth/registration-service.js';
import type { AccountabilityResolver } from '../auth/accountability-resolver.js';
import type { AuthService } from '../auth/auth-service.js';
import type { MeService } from '../auth/me-service.js';
import type { TfaService } from '../auth/tfa-service.js';
import type { RateLimiters } from '../bus/rate-limiters.js';
import type { Clock } from '../config/clock.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import type { ResponseCache } from '../cache/response-cache.js';
import type { ItemsService } from '../engine/read/items-service.js';
import type { ItemsWriter } from '../engine/write/items-writer.js';
import type { SubscriptionHub } from '../realtime/hub/subscription-hub.js';
import type { RightsNotices } from '../realtime/rights-notices.js';
import type { CollectionsService } from '../schema-admin/collections-service.js';
import type { FieldsService } from '../schema-admin/fields-service.js';
import type { RelationsService } from '../schema-admin/relations-service.js';
import type { SchemaChanges } from '../schema-admin/schema-changes.js';
import type { SchemaStore } from '../schema/schema-store.js';

/** Reads and writes of items (user collections and service_* tables alike), with the settings that bound them. */
export interface ItemsApi {
  config: Config;
  schema: SchemaStore;
  items: ItemsService;
  writer: ItemsWriter;
  /** Answers from memory (CACHE_ENABLED); null when off. */
  responses: ResponseCache | null;
}

/** Fields, collections and relations, and whole-schema snapshots and applies (serialised through `schemaChanges`). */
export interface SchemaAdminApi {
  db: Database;
  schema: SchemaStore;
  schemaChanges: SchemaChanges;
  fields: FieldsService;
  collections: CollectionsService;
  relations: RelationsService;
}

/** Login, refresh and logout, two-factor set-up, and what the signed-in user may see of the app. */
export interface AccountApi {
  config: Config;
  auth: AuthService;
  tfa: TfaService;
  me: MeService;
  /** The flows that go by mail: password reset, invitations, registration. */
  passwordReset: PasswordResetService;
  invites: InviteService;
  registration: RegistrationService;
}

/** Who a token (or none) stands for, from an address. */
export interface CallerApi {
  config: Config;
  accountability: AccountabilityResolver;
  /**
   * Runs the rest of a request as its caller (a user's id, or a public caller's address), so that database reads
   * after the caller's own write see it (read replicas); absent when no replica is configured.
   */
  asCaller?: (caller: string, work: () => void) => void;
}

/** A caller whose rights are followed for as long as a socket lives: token expiry, and notices that rights changed. */
export interface LiveCallerApi extends CallerApi {
  clock: Clock;
  rights: RightsNotices;
}

/** The /websocket protocol: items messages, subscriptions, sign-in over the socket and its rate limit. */
export interface RealtimeApi extends ItemsApi, LiveCallerApi {
  auth: AuthService;
  subscriptions: SubscriptionHub;
  rateLimiters: RateLimiters;
}
