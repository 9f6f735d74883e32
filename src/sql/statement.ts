import type { SqlDialect } from './dialect-hooks.js';

/** Collects bound parameters while SQL text is being written. */
export class Statement {
  readonly params: unknown[] = [];

  constructor(readonly dialect: SqlDialect) {}

  param(value: unknown): string {
    this.params.push(value);
    return this.dialect.placeholder(this.params.length);
  }
}

export interface CompiledStatement {
  sql: string;
  params: unknown[];
}
