/**
 * What a write of a content version or a comment must satisfy beyond its columns (Directus docs: Content versions,
 * Comments), for every front end alike (REST, GraphQL, the socket): the writer asks before it plans.
 *
 * Versions: created with `key`, `collection`, `item` (and a `name`) only; `main` is reserved; the caller must be
 * able to read the item; the collection must have `versioning` on; one version per key and item. The server fills
 * `hash` (the main item's, as it is now). Updates change `key` and `name` only: `delta` moves through save.
 * Comments: `comment`, `collection` and `item` required, from a signed-in user who may read the item; each `@<uuid>`
 * mention must be a user that exists.
 */
import { ForbiddenError, InvalidPayloadError, UnprocessableContentError } from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { Payload } from '../../request/write-body.js';
import type { GuardedAction, PayloadGuard } from '../write/payload-guard.js';
import type { ItemLookups } from './item-lookups.js';
import { mentionedUsers } from './mentions.js';
import { isTrusted } from './trusted.js';
import { itemHash } from './version-hash.js';

const VERSION_CREATE_FIELDS = new Set(['key', 'name', 'collection', 'item']);
// `id`: a batch update names each row by it.
const VERSION_UPDATE_FIELDS = new Set(['id', 'key', 'name']);
/** `?version=main` reads the item itself. */
export const MAIN_VERSION = 'main';

export class ContentGuard implements PayloadGuard {
  constructor(private readonly lookups: ItemLookups) {}

  async check(
    collection: string,
    action: GuardedAction,
    payloads: Payload[],
    accountability: Accountability,
  ): Promise<void> {
    if (isTrusted(accountability)) return;
    if (collection === 'service_versions') {
      if (action === 'update') return payloads.forEach(checkVersionUpdate);
      return this.checkVersionCreates(payloads, accountability);
    }
    if (collection === 'service_comments') {
      if (action === 'create' && !accountability.user) throw new ForbiddenError();
      for (const payload of payloads) await this.checkComment(payload, action, accountability);
    }
  }

  private async checkVersionCreates(payloads: Payload[], accountability: Accountability): Promise<void> {
    const seen = new Set<string>();
    for (const payload of payloads) {
      const { key, collection, item } = versionCreateFields(payload);
      const combo = JSON.stringify([key, collection, item]);
      if (seen.has(combo))
        throw new UnprocessableContentError(
          `Cannot create multiple versions on "${item}" in collection "${collection}" with the same key "${key}"`,
        );
      seen.add(combo);
      await this.lookups.assertReadable(collection, item, accountability);
      if (!this.lookups.collection(collection).meta?.versioning)
        throw new UnprocessableContentError(`Content Versioning is not enabled for collection "${collection}"`);
      const existing = await this.lookups.versions(
        { key: { _eq: key }, collection: { _eq: collection }, item: { _eq: item } },
        1,
      );
      if (existing.length)
        throw new UnprocessableContentError(
          `Version "${key}" already exists for item "${item}" in collection "${collection}"`,
        );
      payload.item = item;
      payload.hash = itemHash(await this.lookups.mainItem(collection, item));
    }
  }

  private async checkComment(payload: Payload, action: GuardedAction, accountability: Accountability) {
    const required = action === 'create' ? ['comment', 'collection', 'item'] : [];
    for (const field of required)
      if (payload[field] === undefined || payload[field] === null || payload[field] === '')
        throw new InvalidPayloadError(`"${field}" is required`);
    if ('comment' in payload && (typeof payload.comment !== 'string' || payload.comment.trim() === ''))
      throw new InvalidPayloadError('"comment" must be a non-empty string');
    if ('collection' in payload || 'item' in payload) {
      if (action === 'update' && !('collection' in payload && 'item' in payload))
        throw new InvalidPayloadError('"collection" and "item" are changed together');
      const item = itemKey(payload.item);
      payload.item = item;
      await this.lookups.assertReadable(String(payload.collection), item, accountability);
    }
    if (typeof payload.comment === 'string') await this.checkMentions(payload.comment);
  }

  private async checkMentions(comment: string): Promise<void> {
    const mentioned = mentionedUsers(comment);
    if (!mentioned.length) return;
    const existing = await this.lookups.existingUsers(mentioned);
    const missing = mentioned.find((user) => !existing.has(user));
    if (missing) throw new InvalidPayloadError(`"comment" mentions user "${missing}", who doesn't exist`);
  }
}

function versionCreateFields(payload: Payload): { key: string; collection: string; item: string } {
  for (const field of Object.keys(payload))
    if (!VERSION_CREATE_FIELDS.has(field)) throw new InvalidPayloadError(`"${field}" is not allowed`);
  const { key, name, collection } = payload;
  if (typeof key !== 'string' || key === '') throw new InvalidPayloadError('"key" is required');
  if (key === MAIN_VERSION) throw new InvalidPayloadError(`"${MAIN_VERSION}" is a reserved version key`);
  if (name !== undefined && name !== null && typeof name !== 'string')
    throw new InvalidPayloadError('"name" must be a string');
  if (typeof collection !== 'string' || collection === '') throw new InvalidPayloadError('"collection" is required');
  // Directus 11 versions existing items only (its app offers no version of an item not yet saved, `+`).
  if (payload.item === null || payload.item === undefined || payload.item === NEW_ITEM)
    throw new InvalidPayloadError(NO_NEW_ITEM_VERSIONS);
  return { key, collection, item: itemKey(payload.item) };
}

/** The app's route key of an item not yet created. */
const NEW_ITEM = '+';
const NO_NEW_ITEM_VERSIONS = '"item" must be the key of an existing item: items not yet created have no versions';

function checkVersionUpdate(payload: Payload): void {
  for (const field of Object.keys(payload))
    if (!VERSION_UPDATE_FIELDS.has(field)) throw new InvalidPayloadError(`"${field}" is not allowed`);
  if ('key' in payload && (typeof payload.key !== 'string' || payload.key === ''))
    throw new InvalidPayloadError('"key" must be a non-empty string');
  if (payload.key === MAIN_VERSION) throw new InvalidPayloadError(`"${MAIN_VERSION}" is a reserved version key`);
  if ('name' in payload && payload.name !== null && typeof payload.name !== 'string')
    throw new InvalidPayloadError('"name" must be a string');
}

/** An item's key as the trail stores it (a string; numbers accepted, as clients send them). */
export function itemKey(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value === '') throw new InvalidPayloadError('"item" is required');
  return value;
}
