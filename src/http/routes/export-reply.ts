/** `?export=csv|csv_utf8|json|ndjson|xml|yaml` on a list read: the rows as a streamed download. */
import type { FastifyReply } from 'fastify';
import type { Accountability } from '../../permissions/accountability.js';
import type { Query } from '../../request/query.js';
import type { ItemsApi } from '../../app/ports.js';
import type { ReadOptions } from '../../engine/read/items-service.js';
import { contentDisposition, exportDownload, parseExportFormat } from '../../io/export-stream.js';

export async function sendExport(
  context: ItemsApi,
  reply: FastifyReply,
  collection: string,
  query: Query,
  format: unknown,
  accountability: Accountability,
  read?: ReadOptions,
): Promise<FastifyReply> {
  const download = await exportDownload(collection, query, parseExportFormat(format), {
    items: context.items,
    schema: context.schema.current,
    accountability,
    batchSize: context.config.io.exportBatchSize,
    queryLimitDefault: context.config.queryLimitDefault,
    escapeFormulas: context.config.io.escapeCsvFormulas,
    read,
  });
  return reply
    .header('content-disposition', contentDisposition(download.filename))
    .header('cache-control', 'no-cache')
    .type(download.contentType)
    .send(download.stream);
}
