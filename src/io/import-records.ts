/**
 * Import parsers: a byte stream → its records one at a time, each with the line of the file it starts on (ends on,
 * for CSV records spanning lines), so that a bad row can be named. Nothing holds more than one record.
 *
 * CSV follows Directus's import: the header names the fields (dot paths such as `author.name` build nested
 * objects, as exports write them), an empty cell is left out (the column default applies), a cell holding a JSON
 * object, array, boolean or null is that value, anything else is the text (numbers included: the writer converts
 * text per field type).
 *
 * No name in a file reaches a prototype: a CSV header naming `__proto__`, `constructor` or `prototype` (as a field or
 * a dot path segment) is refused before any row, and JSON records are parsed as JSON bodies are (`__proto__` keys
 * and `constructor.prototype` refused), both INVALID_PAYLOAD; a dot path is walked through own properties only.
 */
import { pipeline, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { parse as csvParse, CsvError } from 'csv-parse';
import { InvalidPayloadError } from '../errors/catalogue.js';
import { isPrototypeKey, jsonBodyKey, prototypeKeyReason, refusedKeyPath } from '../request/prototype-keys.js';
import type { Payload } from '../request/write-body.js';

export type ImportFormat = 'csv' | 'json' | 'ndjson';

export interface ImportRecord {
  payload: Payload;
  line: number;
}

export function importRecords(format: ImportFormat, source: Readable): AsyncGenerator<ImportRecord> {
  if (format === 'csv') return csvRecords(source);
  if (format === 'ndjson') return ndjsonRecords(source);
  return jsonArrayRecords(source);
}

/** The format of a media type or file name; null when it is none of them. */
export function importFormatOf(mediaType: string | undefined, filename?: string): ImportFormat | null {
  const type = (mediaType ?? '').split(';')[0]!.trim().toLowerCase();
  if (['text/csv', 'application/csv', 'text/comma-separated-values'].includes(type)) return 'csv';
  if (
    [
      'application/x-ndjson',
      'application/ndjson',
      'application/jsonl',
      'application/x-jsonlines',
      'application/jsonlines',
    ].includes(type)
  )
    return 'ndjson';
  if (type === 'application/json') return 'json';
  const extension = filename?.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  if (extension === 'csv') return 'csv';
  if (extension === 'ndjson' || extension === 'jsonl') return 'ndjson';
  if (extension === 'json') return 'json';
  return null;
}

function badRecord(reason: string, line: number): InvalidPayloadError {
  return new InvalidPayloadError(`${reason} (line ${line})`, { line });
}

async function* csvRecords(source: Readable): AsyncGenerator<ImportRecord> {
  const parser = csvParse({ columns: csvColumns, bom: true, info: true, skip_empty_lines: true });
  // pipeline (unlike pipe) passes a failure of the source on, also one raised before it was called (an upload
  // over its size limit); the parser's iterator then throws it.
  pipeline(source, parser, () => {});
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      yield { payload: csvPayload(record, info.lines), line: info.lines };
    }
  } catch (error) {
    if (error instanceof InvalidPayloadError) throw error;
    // csv-parse wraps what the `columns` function throws.
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof InvalidPayloadError) throw cause;
    if (error instanceof CsvError)
      throw badRecord(
        `CSV: ${error.message.replace(/^Invalid Record Length: /, '')}`,
        (error as CsvError & { lines?: number }).lines ?? 0,
      );
    throw error;
  } finally {
    parser.destroy();
  }
}

/** The header row: each name a field or a dot path into one; a path naming a prototype key is refused whole. */
function csvColumns(header: string[]): string[] {
  for (const column of header) {
    if (column.split('.').some(isPrototypeKey)) throw badRecord(`CSV header: ${prototypeKeyReason(column)}`, 1);
  }
  return header;
}

function csvPayload(record: Record<string, string>, line: number): Payload {
  const payload: Payload = {};
  for (const [column, text] of Object.entries(record)) {
    if (text === '') continue;
    let value: unknown = text;
    if (/^\s*[[{]/.test(text) || text === 'true' || text === 'false' || text === 'null') {
      try {
        value = JSON.parse(text);
      } catch {
        value = text;
      }
      refuseJsonKeys(value, column, line);
    }
    const path = column.split('.');
    let target = payload;
    for (const part of path.slice(0, -1)) {
      const inner = Object.hasOwn(target, part) ? target[part] : undefined;
      target = (target[part] =
        inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? inner : {}) as Payload;
    }
    target[path[path.length - 1]!] = value;
  }
  return payload;
}

/** What a JSON body may not hold (`__proto__`, `constructor.prototype`) is refused in a record too. */
function refuseJsonKeys(value: unknown, prefix: string, line: number): void {
  const path = refusedKeyPath(value, prefix, jsonBodyKey);
  if (path !== null) throw badRecord(prototypeKeyReason(path), line);
}

function asPayload(value: unknown, line: number): Payload {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw badRecord('Each item must be an object', line);
  refuseJsonKeys(value, '', line);
  return value as Payload;
}

async function* ndjsonRecords(source: Readable): AsyncGenerator<ImportRecord> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let line = 0;
  const record = (text: string): ImportRecord | null => {
    line++;
    const trimmed = (line === 1 ? text.replace(/^\uFEFF/, '') : text).trim();
    if (!trimmed) return null;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw badRecord(`Invalid JSON: ${(error as Error).message}`, line);
    }
    return { payload: asPayload(value, line), line };
  };
  for await (const chunk of source as AsyncIterable<Buffer | string>) {
    const lines = (rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk))).split('\n');
    rest = lines.pop()!;
    for (const text of lines) {
      const parsed = record(text);
      if (parsed) yield parsed;
    }
  }
  const last = record(rest + decoder.end());
  if (last) yield last;
}

/**
 * A JSON array read element by element: a small scanner finds where each top-level element starts and ends
 * (tracking strings and nesting), and each element is parsed on its own.
 */
async function* jsonArrayRecords(source: Readable): AsyncGenerator<ImportRecord> {
  const decoder = new StringDecoder('utf8');
  let state: 'before' | 'value' | 'element' | 'after' | 'done' = 'before';
  let line = 1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let pending = '';
  let elementLine = 1;
  let afterComma = false;

  const parseElement = (text: string): Payload => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw badRecord(`Invalid JSON: ${(error as Error).message}`, elementLine);
    }
    return asPayload(value, elementLine);
  };

  for await (const chunk of source as AsyncIterable<Buffer | string>) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = state === 'element' ? 0 : -1;
    const out: ImportRecord[] = [];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) line++;
      if (state === 'element') {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 92) escaped = true;
          else if (c === 34) inString = false;
        } else if (c === 34) inString = true;
        else if (c === 123 || c === 91) depth++;
        else if (c === 125 || c === 93) {
          if (--depth === 0) {
            out.push({ payload: parseElement(pending + text.slice(start, i + 1)), line: elementLine });
            pending = '';
            start = -1;
            state = 'after';
          }
        }
        continue;
      }
      if (c === 32 || c === 10 || c === 13 || c === 9 || c === 0xfeff) continue;
      if (state === 'before') {
        if (c !== 91) throw badRecord('A JSON import must be an array of objects', line);
        state = 'value';
        afterComma = false;
      } else if (state === 'value' && c === 123) {
        state = 'element';
        depth = 1;
        start = i;
        elementLine = line;
      } else if (state === 'value' && c === 93 && !afterComma) {
        state = 'done';
      } else if (state === 'after' && c === 44) {
        state = 'value';
        afterComma = true;
      } else if (state === 'after' && c === 93) state = 'done';
      else throw badRecord(state === 'value' ? 'Each item must be an object' : 'Invalid JSON array', line);
    }
    if (state === 'element' && start >= 0) pending += text.slice(start);
    yield* out;
  }
  if ((state as string) !== 'done')
    throw badRecord(
      state === 'before' ? 'A JSON import must be an array of objects' : 'Unexpected end of the JSON array',
      line,
    );
}
