/**
 * REST's data envelope (Directus docs: Items): `{"data": ..., "meta": {...}}`, written around the JSON text the read
 * engine answers with, without decoding it. A write the caller may not read back (null) answers 204.
 */
import type { FastifyReply } from 'fastify';
import type { JsonRead } from '../engine/read/items-service.js';

export function dataBody(read: JsonRead): string {
  const meta: string[] = [];
  if (read.totalCount !== undefined) meta.push(`"total_count":${read.totalCount}`);
  if (read.filterCount !== undefined) meta.push(`"filter_count":${read.filterCount}`);
  return `{"data":${read.json}${meta.length ? `,"meta":{${meta.join(',')}}` : ''}}`;
}

export function sendData(reply: FastifyReply, read: JsonRead | null): FastifyReply {
  if (read === null) return reply.code(204).send();
  return reply.type('application/json; charset=utf-8').send(dataBody(read));
}
