/**
 * Export serialisers: each turns batches of rows (plain objects as the API reads them) into text, one batch at a
 * time, so an export of any size is written with the memory of one batch. The first batch also fixes the CSV
 * header (rows of one read share their keys; see `csvHeader`).
 */
import { toYaml } from './yaml.js';
import type { Row } from '../db/connection.js';

export const EXPORT_FORMATS = ['csv', 'csv_utf8', 'json', 'ndjson', 'xml', 'yaml'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value);
}

export interface FormatInfo {
  contentType: string;
  extension: string;
}

export const FORMAT_INFO: Record<ExportFormat, FormatInfo> = {
  csv: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  csv_utf8: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  json: { contentType: 'application/json; charset=utf-8', extension: 'json' },
  ndjson: { contentType: 'application/x-ndjson; charset=utf-8', extension: 'ndjson' },
  xml: { contentType: 'text/xml; charset=utf-8', extension: 'xml' },
  yaml: { contentType: 'text/yaml; charset=utf-8', extension: 'yaml' },
};

/** Writes one export: `start()` once, `rows()` per batch, `end()` once; each returns the text to send. */
export interface ExportWriter {
  start(): string;
  rows(batch: Row[]): string;
  end(): string;
}

/** Whether the object at a dot path is a related row (flattened in CSV) rather than a JSON value (kept whole). */
export type RowObjectTest = (path: string[]) => boolean;

export function exportWriter(
  format: ExportFormat,
  isRelatedRow: RowObjectTest = () => true,
  escapeFormulas = true,
): ExportWriter {
  switch (format) {
    case 'csv':
      return new CsvWriter(false, isRelatedRow, escapeFormulas);
    case 'csv_utf8':
      return new CsvWriter(true, isRelatedRow, escapeFormulas);
    case 'json':
      return new JsonWriter();
    case 'ndjson':
      return {
        start: () => '',
        rows: (batch) => batch.map((row) => `${JSON.stringify(row)}\n`).join(''),
        end: () => '',
      };
    case 'xml':
      return new XmlWriter();
    case 'yaml':
      return new YamlWriter();
  }
}

class JsonWriter implements ExportWriter {
  private first = true;
  start(): string {
    return '[';
  }
  rows(batch: Row[]): string {
    let text = '';
    for (const row of batch) {
      text += `${this.first ? '\n' : ',\n'}${JSON.stringify(row)}`;
      this.first = false;
    }
    return text;
  }
  end(): string {
    return this.first ? ']\n' : '\n]\n';
  }
}

/** A YAML sequence written batch by batch: each stringified list continues the one before. */
class YamlWriter implements ExportWriter {
  private empty = true;
  start(): string {
    return '';
  }
  rows(batch: Row[]): string {
    if (!batch.length) return '';
    this.empty = false;
    return toYaml(batch);
  }
  end(): string {
    return this.empty ? '[]\n' : '';
  }
}

/**
 * CSV (RFC 4180): nested objects flattened to dot paths (`author.name`), as Directus's exports do; arrays and
 * objects met where the header has a plain column are written as JSON; null is an empty cell. Cells a spreadsheet
 * would run as a formula are neutralised (`csvFormulaSafe`) unless `escapeFormulas` is false.
 */
class CsvWriter implements ExportWriter {
  private header: string[] | null = null;
  private readonly cell: (text: string) => string;
  constructor(
    private readonly bom: boolean,
    private readonly isRelatedRow: RowObjectTest,
    escapeFormulas: boolean,
  ) {
    this.cell = escapeFormulas ? (text) => csvCell(csvFormulaSafe(text)) : csvCell;
  }
  start(): string {
    return this.bom ? '\uFEFF' : '';
  }
  rows(batch: Row[]): string {
    if (!batch.length) return '';
    let text = '';
    if (!this.header) {
      this.header = csvHeader(batch, this.isRelatedRow);
      text += `${this.header.map(this.cell).join(',')}\r\n`;
    }
    const header = this.header;
    for (const row of batch) text += `${header.map((path) => this.cell(cellValue(valueAt(row, path)))).join(',')}\r\n`;
    return text;
  }
  end(): string {
    return '';
  }
}

/** Flattened keys of the rows, in first-seen order. */
export function csvHeader(rows: Row[], isRelatedRow: RowObjectTest = () => true): string[] {
  const keys = new Set<string>();
  const walk = (value: Row, prefix: string[]): void => {
    for (const [key, inner] of Object.entries(value)) {
      const path = [...prefix, key];
      if (inner !== null && typeof inner === 'object' && !Array.isArray(inner) && isRelatedRow(path))
        walk(inner as Row, path);
      else keys.add(path.join('.'));
    }
  };
  for (const row of rows) walk(row, []);
  // A relation null in one row and an object in another yields both `author` and `author.name`: keep the paths.
  return [...keys].filter((key) => ![...keys].some((other) => other.startsWith(`${key}.`)));
}

function valueAt(row: Row, path: string): unknown {
  if (path in row) return row[path];
  let value: unknown = row;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    value = (value as Row)[part];
  }
  return value;
}

function cellValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** What a spreadsheet reads as the start of a formula (OWASP, CSV injection): `=`, `+`, `-`, `@`, tab, CR. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number (`-5`, `+1.5`, `-2e3`): a spreadsheet reads it as that number, never as a formula. */
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A cell's text with a `'` in front when a spreadsheet would run it as a formula (`=HYPERLINK(…)`, `@SUM(…)`,
 * `-2+3`), as OWASP recommends; plain numbers (`-5`, `-1.5`, a negative decimal read as text) stay as they are,
 * whatever the field, since they run nothing and must stay numbers.
 */
export function csvFormulaSafe(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

function csvCell(text: string): string {
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** `<data><item><field>value</field>…</item>…</data>`; names that are not XML names become `<field name="…">`. */
class XmlWriter implements ExportWriter {
  start(): string {
    return '<?xml version="1.0" encoding="UTF-8"?>\n<data>\n';
  }
  rows(batch: Row[]): string {
    return batch.map((row) => `  ${xmlElement('item', row)}\n`).join('');
  }
  end(): string {
    return '</data>\n';
  }
}

const XML_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function xmlElement(name: string, value: unknown): string {
  const [open, close] =
    XML_NAME.test(name) && !/^xml/i.test(name)
      ? [`<${name}`, `</${name}>`]
      : [`<field name="${xmlEscape(name)}"`, '</field>'];
  if (value === null || value === undefined) return `${open}/>`;
  if (Array.isArray(value)) return `${open}>${value.map((item) => xmlElement('item', item)).join('')}${close}`;
  if (typeof value === 'object')
    return `${open}>${Object.entries(value as Row)
      .map(([k, v]) => xmlElement(k, v))
      .join('')}${close}`;
  return `${open}>${xmlEscape(String(value))}${close}`;
}

function xmlEscape(text: string): string {
  // Characters XML 1.0 cannot hold at all are dropped; markup characters are escaped.
  return text
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
