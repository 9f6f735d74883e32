/**
 * An export as a stream of text: the serialiser of the format over the batches of `exportBatches`. The first batch
 * is read before anything is sent, so a bad query or a forbidden field still answers with its coded error.
 */
import { Readable } from 'node:stream';
import { InvalidQueryError } from '../errors/catalogue.js';
import type { Query } from '../request/query.js';
import type { SchemaOverview } from '../schema/types.js';
import { exportBatches, type ExportReadOptions } from './export-reader.js';
import {
  EXPORT_FORMATS,
  FORMAT_INFO,
  exportWriter,
  isExportFormat,
  type ExportFormat,
  type RowObjectTest,
} from './export-formats.js';

export interface ExportDownload {
  stream: Readable;
  contentType: string;
  /** `<collection> <yyyymmdd-hhmmss>.<ext>`, as Directus names its downloads. */
  filename: string;
}

export function parseExportFormat(raw: unknown): ExportFormat {
  if (!isExportFormat(raw)) throw new InvalidQueryError(`"export" must be one of ${EXPORT_FORMATS.join(', ')}`);
  return raw;
}

export async function exportDownload(
  collection: string,
  query: Query,
  format: ExportFormat,
  options: ExportReadOptions,
): Promise<ExportDownload> {
  const batches = exportBatches(collection, query, options);
  const writer = exportWriter(format, relatedRowTest(options.schema, collection), options.escapeFormulas !== false);
  const first = await batches.next();
  async function* text(): AsyncGenerator<string> {
    yield writer.start();
    if (!first.done) {
      yield writer.rows(first.value);
      for await (const batch of batches) yield writer.rows(batch);
    }
    yield writer.end();
  }
  const info = FORMAT_INFO[format];
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return {
    stream: Readable.from(text(), { objectMode: false }),
    contentType: info.contentType,
    filename: `${collection} ${stamp}.${info.extension}`,
  };
}

/** `attachment; filename="…"` with an RFC 5987 `filename*` for names outside ASCII. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** Objects under m2o fields (at any depth, and under aliases of them) are related rows; anything else is a JSON value. */
function relatedRowTest(schema: SchemaOverview, collection: string): RowObjectTest {
  return (path) => {
    let current = schema.collections[collection];
    for (const name of path) {
      const link = current?.links[name];
      if (!link || link.kind !== 'm2o') return false;
      current = schema.collections[link.related];
    }
    return true;
  };
}
