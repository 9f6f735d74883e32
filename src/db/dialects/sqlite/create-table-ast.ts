/**
 * SQLite keeps a table's definition only as its CREATE TABLE text, so changing a column means rewriting that text
 * and rebuilding the table. knex ships a parser and compiler for exactly this (its own alter-column uses them); they
 * are internal to knex, so they are loaded here, typed for what Strata touches, and nowhere else.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export interface ColumnConstraintsAst {
  primary: { name: string | null; order: string | null; conflict: string | null; autoincrement: boolean } | null;
  notnull: { name: string | null; conflict: string | null } | null;
  null: { name: string | null; conflict: string | null } | null;
  unique: { name: string | null; conflict: string | null } | null;
  check: unknown;
  default: { name: string | null; value: unknown; expression: boolean } | null;
  collate: unknown;
  references: ReferencesAst | null;
  as: unknown;
}

export interface ReferencesAst {
  name?: string | null;
  table: string;
  columns: string[];
  delete: string | null;
  update: string | null;
  match: string | null;
  deferrable: unknown;
}

export interface ColumnAst {
  name: string;
  type: string | null;
  constraints: ColumnConstraintsAst;
  expression?: boolean;
}

export type TableConstraintAst =
  | { type: 'PRIMARY KEY' | 'UNIQUE'; name: string | null; columns: { name: string; expression: boolean }[]; conflict: string | null }
  | { type: 'CHECK'; name: string | null; expression: unknown }
  | { type: 'FOREIGN KEY'; name: string | null; columns: string[]; references: ReferencesAst };

export interface TableAst {
  table: string;
  columns: ColumnAst[];
  constraints: TableConstraintAst[];
  [key: string]: unknown;
}

export interface IndexAst {
  index: string;
  table: string;
  columns: { name: string; expression: boolean }[];
  [key: string]: unknown;
}

const parser = require('knex/lib/dialects/sqlite3/schema/internal/parser.js') as {
  parseCreateTable(sql: string): TableAst;
  parseCreateIndex(sql: string): IndexAst;
};
const compiler = require('knex/lib/dialects/sqlite3/schema/internal/compiler.js') as {
  compileCreateTable(ast: TableAst, wrap: (name: string) => string): string;
  compileCreateIndex(ast: IndexAst, wrap: (name: string) => string): string;
};

/** The parser keeps quoted names as written inside the quotes (`""` doubled); this writes either form back quoted. */
export function wrapName(name: string): string {
  return `"${unescapeName(name).replace(/"/g, '""')}"`;
}

export function unescapeName(name: string): string {
  return name.replace(/""/g, '"');
}

/** SQLite compares identifiers without regard to case. */
export function sameName(a: string, b: string): boolean {
  return unescapeName(a).toLowerCase() === unescapeName(b).toLowerCase();
}

export const parseCreateTable = (sql: string): TableAst => parser.parseCreateTable(sql);
export const parseCreateIndex = (sql: string): IndexAst => parser.parseCreateIndex(sql);
export const compileCreateTable = (ast: TableAst): string => compiler.compileCreateTable(ast, wrapName);
export const compileCreateIndex = (ast: IndexAst): string => compiler.compileCreateIndex(ast, wrapName);
