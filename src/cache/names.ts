/** Every cache of Strata by name; invalidation.ts says, for each, what clears it (or why nothing needs to). */
export const CACHE_NAMES = [
  'permission-sets',
  'users',
  'static-tokens',
  'public-policies',
  'settings',
  'live-logins',
  'ended-logins',
  'graphql-schemas',
  'graphql-documents',
  'graphql-pass-through',
  'graphql-selections',
  'openapi-documents',
  'statements',
  'statement-shapes',
  'query-strings',
  'prepared-statements',
  'responses',
] as const;

export type CacheName = (typeof CACHE_NAMES)[number];
