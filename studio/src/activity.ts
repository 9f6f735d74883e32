/**
 * The activity page's reading of `/activity` rows: who (a name, else the email, else "System"), what, and where the
 * row's item is in the app (items of a content collection, a comment's item, a file, a user for admins).
 */
import { formatDate } from './format';
import { can, isSystem, session } from './session';

export interface ActivityUser {
  id?: string;
  email?: string | null;
  first_name?: string | null;
  last_name?: string | null;
}

export interface ActivityRow {
  id: number;
  action: string;
  timestamp: string;
  collection: string;
  item: string;
  ip?: string | null;
  user_agent?: string | null;
  origin?: string | null;
  /** The user as read (null: none, or one the caller may not read). */
  user: ActivityUser | string | null;
}

/** The actions Strata records (Directus's, and `login_failed`), for the filter. */
export const ACTIONS = ['create', 'update', 'delete', 'login', 'login_failed'] as const;

export const PAGE_SIZE = 25;

/** Directus's `userName`: first and last name, else the first name, the email; no user: "System". */
export function userName(user: ActivityRow['user']): string {
  if (user === null) return 'System';
  if (typeof user === 'string') return user;
  const first = user.first_name ?? '';
  const last = user.last_name ?? '';
  return first && last ? `${first} ${last}` : first || user.email || user.id || 'Unknown user';
}

/** The app path of an activity row's item, when the app has a page for it and the caller may open it. */
export function itemPath(collection: string, item: string, comment?: { collection: string; item: string }): string {
  if (collection === 'service_comments' && comment) return itemPath(comment.collection, comment.item);
  if (collection === 'service_files') return can('service_files', 'read') ? `/files/${encodeURIComponent(item)}` : '';
  if (collection === 'service_flows') return can('service_flows', 'read') ? `/flows/${encodeURIComponent(item)}` : '';
  if (isSystem(collection)) return '';
  const known = session.collections.find((c) => c.collection === collection);
  if (!known || known.schema === null || !can(collection, 'read')) return '';
  return `/content/${encodeURIComponent(collection)}/${encodeURIComponent(item)}`;
}

/** The filter of the list from the chosen action, collection and user ('' for any). */
export function activityFilter(action: string, collection: string, user: string): Record<string, unknown> {
  const filter: Record<string, unknown>[] = [];
  if (action) filter.push({ action: { _eq: action } });
  if (collection) filter.push({ collection: { _eq: collection } });
  if (user === 'none') filter.push({ user: { _null: true } });
  else if (user) filter.push({ user: { _eq: user } });
  return filter.length ? { _and: filter } : {};
}

/**
 * An activity time in the user's locale and time zone. The API sends it without a zone (the field is a `dateTime`);
 * it is written in UTC, so a value without one is read as UTC.
 */
export function activityTime(value: string | null | undefined): string {
  if (!value) return '';
  const zoned = /(Z|[+-]\d\d:?\d\d)$/.test(value);
  return formatDate('timestamp', zoned ? value : `${value.replace(' ', 'T')}Z`);
}
