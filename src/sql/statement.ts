import { InvalidQueryError } from '../errors/catalogue.js';
import type { SqlDialect } from './dialect-hooks.js';

const MARKER = /\u0001(\d+)\u0001/g;

/**
 * Collects bound parameters while SQL text is being written. Fragments are written in whatever order is convenient
 * (a nested level before the text around it), so `param` leaves a marker and `finish` numbers the placeholders and
 * orders the values as they appear in the final text — what positional `?` placeholders need.
 */
export class Statement {
  private readonly values: unknown[] = [];
  private aliases = 0;

  constructor(readonly dialect: SqlDialect) {}

  param(value: unknown): string {
    this.values.push(value);
    return `\u0001${this.values.length - 1}\u0001`;
  }

  /** A fresh table alias (already quoted), unique within the statement. */
  alias(): string {
    return this.dialect.quote(`t${this.aliases++}`);
  }

  finish(sql: string): CompiledStatement {
    if (this.values.length > this.dialect.maxParameters)
      throw new InvalidQueryError(`The query holds too many values (at most ${this.dialect.maxParameters})`);
    const params: unknown[] = [];
    const text = sql.replace(MARKER, (_m, index: string) => {
      params.push(this.values[Number(index)]);
      return this.dialect.placeholder(params.length);
    });
    return { sql: text, params };
  }
}

export interface CompiledStatement {
  sql: string;
  params: unknown[];
}
