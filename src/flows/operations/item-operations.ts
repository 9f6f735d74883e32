/**
 * Directus's item operations (item-create, item-read, item-update, item-delete) through the same writer and read
 * engine as the API. `permissions`: `$trigger` (the trigger's accountability; a trigger without one, as a schedule,
 * has full access, as Directus), `$full` (full access) or `$public`. `emitEvents` (default false, as Directus):
 * whether the write sets off other event flows.
 */
import type { Accountability } from '../../permissions/accountability.js';
import { publicAccountability } from '../../permissions/accountability.js';
import { SUDO } from '../../engine/versions/trusted.js';
import { parseQuery } from '../../request/parse-query.js';
import type { KeyInput, Query } from '../../request/query.js';
import type { Payload } from '../../request/write-body.js';
import { ITEM_SYSTEM_COLLECTIONS } from '../../schema/system-meta.js';
import { asRecord } from '../safe-objects.js';
import { OperationError, type OperationContext, type OperationHandler } from './operation-context.js';

function accountabilityFor(options: Record<string, unknown>, context: OperationContext): Accountability {
  const permissions = options.permissions ?? '$trigger';
  if (permissions === '$full') return SUDO;
  if (permissions === '$public') return publicAccountability();
  if (permissions === '$trigger') return context.accountability ?? SUDO;
  throw new OperationError('permissions must be $trigger, $full or $public (role ids are not supported yet)', null);
}

function collectionOf(options: Record<string, unknown>): string {
  const collection = options.collection;
  if (typeof collection !== 'string' || collection === '') throw new OperationError('No collection given', null);
  return collection;
}

function queryOf(options: Record<string, unknown>, context: OperationContext, fields?: string[]): Query {
  const { config } = context.services;
  const raw = asRecord(options.query);
  const query = parseQuery(raw, {
    queryLimitMax: config.queryLimitMax,
    maxRelationalDepth: config.maxRelationalDepth,
    maxJsonQueryDepth: config.maxJsonQueryDepth,
  });
  return fields ? { ...query, fields } : query;
}

function keysOf(options: Record<string, unknown>): KeyInput[] | null {
  const key = options.key;
  if (key === undefined || key === null || key === '') return null;
  const keys = Array.isArray(key) ? key : [key];
  return keys.filter((k): k is KeyInput => typeof k === 'string' || typeof k === 'number');
}

function writeOptions(collection: string, options: Record<string, unknown>) {
  return {
    system: ITEM_SYSTEM_COLLECTIONS.has(collection),
    reread: 'rows' as const,
    flowEvents: options.emitEvents === true,
  };
}

function keysOfRows(data: unknown, primary: string): unknown[] {
  const rows = Array.isArray(data) ? data : data ? [data] : [];
  return rows.map((row) => (row as Record<string, unknown>)[primary]);
}

export const itemCreate: OperationHandler = async (options, context) => {
  const collection = collectionOf(options);
  const { writer } = context.services;
  const accountability = accountabilityFor(options, context);
  const payload = options.payload ?? {};
  const list = (Array.isArray(payload) ? payload : [payload]).map((item) => asRecord(item) as Payload);
  const target = await writer.open(collection, 'create', accountability, writeOptions(collection, options));
  const primary = target.collection.primary ?? 'id';
  const result = await writer.create(target, list, true, queryOf({}, context, [primary]));
  return keysOfRows(result?.data, primary);
};

export const itemRead: OperationHandler = async (options, context) => {
  const collection = collectionOf(options);
  const accountability = accountabilityFor(options, context);
  const keys = keysOf(options);
  const readOptions = { system: ITEM_SYSTEM_COLLECTIONS.has(collection) };
  const query = queryOf(options, context);
  const { items } = context.services;
  if (keys && keys.length === 1 && !Array.isArray(options.key))
    return (await items.rowsOne(collection, String(keys[0]), query, accountability, undefined, readOptions)).data;
  if (keys) {
    const primary = context.services.schema().collections[collection]?.primary ?? 'id';
    const filter = JSON.stringify({ [primary]: { _in: keys } });
    const scoped = queryOf({ query: { ...asRecord(options.query), filter } }, context);
    return (await items.rowsMany(collection, scoped, accountability, undefined, readOptions)).data;
  }
  return (await items.rowsMany(collection, query, accountability, undefined, readOptions)).data;
};

export const itemUpdate: OperationHandler = async (options, context) => {
  const collection = collectionOf(options);
  const { writer } = context.services;
  const accountability = accountabilityFor(options, context);
  const target = await writer.open(collection, 'update', accountability, writeOptions(collection, options));
  const primary = target.collection.primary ?? 'id';
  const data = asRecord(options.payload) as Payload;
  const keys = keysOf(options);
  const body = keys
    ? { kind: 'keys' as const, keys, data }
    : { kind: 'query' as const, query: queryOf(options, context), data };
  const result = await writer.updateMany(target, body, queryOf({}, context, [primary]));
  return keysOfRows(result?.data, primary);
};

export const itemDelete: OperationHandler = async (options, context) => {
  const collection = collectionOf(options);
  const { writer } = context.services;
  const accountability = accountabilityFor(options, context);
  const target = await writer.open(collection, 'delete', accountability, writeOptions(collection, options));
  const keys = keysOf(options);
  await writer.delete(target, keys ? { kind: 'keys', keys } : { kind: 'query', query: queryOf(options, context) });
  return keys ?? null;
};

/**
 * Directus's notification: one service_notifications row per `recipient` (a user id, a comma-separated list or a
 * list) with `subject`, `message`, and the optional `collection` and `item` it is about, sent by the trigger's user;
 * written as item-create with the operation's `permissions`. The new notifications' ids.
 */
export const notification: OperationHandler = async (options, context) => {
  const raw = options.recipient;
  const recipients = (Array.isArray(raw) ? raw : String(raw ?? '').split(','))
    .map((item) => String(item).trim())
    .filter(Boolean);
  if (recipients.length === 0) throw new OperationError('The notification has no recipient', null);
  const item = options.item === undefined || options.item === null ? null : String(options.item);
  const payload = recipients.map((recipient) => ({
    recipient,
    sender: context.accountability?.user ?? null,
    subject: String(options.subject ?? ''),
    message: options.message === undefined || options.message === null ? null : String(options.message),
    collection: typeof options.collection === 'string' && options.collection ? options.collection : null,
    item,
  }));
  const create = { collection: 'service_notifications', payload, permissions: options.permissions ?? '$trigger' };
  return itemCreate(create, context);
};
