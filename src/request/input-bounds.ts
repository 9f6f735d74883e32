/**
 * Bounds on what one request may ask for, checked while parsing so that no later stage loops or recurses over
 * input whose size the client chooses: every stage after parsing may assume these hold.
 */
import { InvalidQueryError } from '../errors/catalogue.js';

/** Deepest nesting of `_and` / `_or` / relational objects in one filter. */
export const MAX_FILTER_DEPTH = 50;
/** Most fields in one `sort` (MariaDB runs out of sort memory on a few hundred). */
export const MAX_SORT_FIELDS = 100;
/** Longest `search` term, in characters. */
export const MAX_SEARCH_LENGTH = 10_000;

/** NUL cannot be stored or compared in PostgreSQL text; refusing it everywhere keeps the databases alike. */
export function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

/** A text the client wrote into a query, refused when it holds NUL. */
export function queryText(text: string, name: string): string {
  if (hasNul(text)) throw new InvalidQueryError(`"${name}" can't contain NUL characters`);
  return text;
}

/** Integers beyond 2^53 lose their digits in JavaScript; limits, offsets and pages stay within it. */
export function safeInteger(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value))
    throw new InvalidQueryError(
      `"${name}" has to be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
    );
  return value;
}

export function searchTerm(text: string, name: string): string {
  if (text.length > MAX_SEARCH_LENGTH)
    throw new InvalidQueryError(`"${name}" can't be longer than ${MAX_SEARCH_LENGTH} characters`);
  return queryText(text, name);
}

export function sortFields<T>(items: T[]): T[] {
  if (items.length > MAX_SORT_FIELDS)
    throw new InvalidQueryError(`"sort" can't name more than ${MAX_SORT_FIELDS} fields`);
  return items;
}
