/** The operation types a flow may use, by Directus's names (exec is not there: docs/flows.md). */
import { condition, log, sleep, transform, trigger } from './basic-operations.js';
import { itemCreate, itemDelete, itemRead, itemUpdate, notification } from './item-operations.js';
import type { OperationHandler } from './operation-context.js';
import { jsonWebToken } from './jwt-operation.js';
import { mail, throwError } from './mail-operation.js';
import { request } from './request-operation.js';

export const OPERATIONS: ReadonlyMap<string, OperationHandler> = new Map([
  ['condition', condition],
  ['log', log],
  ['transform', transform],
  ['sleep', sleep],
  ['trigger', trigger],
  ['request', request],
  ['item-create', itemCreate],
  ['item-read', itemRead],
  ['item-update', itemUpdate],
  ['item-delete', itemDelete],
  ['mail', mail],
  ['throw-error', throwError],
  ['notification', notification],
  ['json-web-token', jsonWebToken],
]);
