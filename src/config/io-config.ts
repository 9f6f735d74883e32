/** Import and export settings: batch sizes (rows per statement / per read) and the largest import file. */
import { bool, int, size, type Env } from './env-values.js';

export interface IoConfig {
  /** Rows read per statement while exporting (EXPORT_BATCH_SIZE). */
  exportBatchSize: number;
  /** Rows written per statement while importing (IMPORT_BATCH_SIZE). */
  importBatchSize: number;
  /** Largest import file in bytes (IMPORT_MAX_FILE_SIZE); larger: 413 CONTENT_TOO_LARGE. */
  importMaxFileSize: number;
  /** CSV exports prefix `'` to cells a spreadsheet would read as a formula (EXPORT_CSV_ESCAPE_FORMULAS). */
  escapeCsvFormulas: boolean;
}

export function readIoConfig(env: Env): IoConfig {
  return {
    exportBatchSize: int(env, 'EXPORT_BATCH_SIZE', 5000, 1, 1_000_000),
    importBatchSize: int(env, 'IMPORT_BATCH_SIZE', 1000, 1, 100_000),
    importMaxFileSize: size(env, 'IMPORT_MAX_FILE_SIZE', '50mb', '50mb, 1gb or 52428800'),
    escapeCsvFormulas: bool(env, 'EXPORT_CSV_ESCAPE_FORMULAS', true),
  };
}
