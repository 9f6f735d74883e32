/**
 * SQLite keeps a table's definition only as its CREATE TABLE text, so changing a column means editing that text and
 * rebuilding the table (table-rebuild.ts). This reads the text into columns and table constraints, each a list of
 * tokens split into clauses, so that an edit replaces whole clauses (a column's type, NOT NULL, DEFAULT, UNIQUE,
 * REFERENCES) and writes everything it does not touch back as it was (https://sqlite.org/lang_createtable.html).
 */

interface Token {
  text: string;
  /** Upper-cased bare word (keywords), '' for anything else. */
  word: string;
  /** The name of an identifier (quotes removed), null for other tokens. */
  name: string | null;
  /** Whitespace (or a comment) came before it. */
  space: boolean;
}

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let space = false;
  const push = (token: Omit<Token, 'space'>) => {
    tokens.push({ ...token, space });
    space = false;
  };
  while (i < sql.length) {
    const ch = sql[i]!;
    if (/\s/.test(ch)) {
      i++;
      space = true;
    } else if (sql.startsWith('--', i)) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
      space = true;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      space = true;
    } else if (ch === '"' || ch === '`' || ch === "'" || ch === '[') {
      const close = ch === '[' ? ']' : ch;
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new Error('Unterminated quote in table definition');
        if (sql[j] === close) {
          if (close !== ']' && sql[j + 1] === close) j += 2;
          else break;
        } else j++;
      }
      const text = sql.slice(i, j + 1);
      const inner = sql.slice(i + 1, j);
      const name = ch === "'" ? null : close === ']' ? inner : inner.split(close + close).join(close);
      push({ text, word: '', name });
      i = j + 1;
    } else if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      const text = /^[0-9]*\.?[0-9]*(?:[eE][-+]?[0-9]+)?/.exec(sql.slice(i))![0];
      push({ text, word: '', name: null });
      i += text.length;
    } else if (/[A-Za-z_$\u0080-\uffff]/.test(ch)) {
      const text = /^[A-Za-z_0-9$\u0080-\uffff]+/.exec(sql.slice(i))![0];
      push({ text, word: text.toUpperCase(), name: text });
      i += text.length;
    } else {
      push({ text: ch, word: '', name: null });
      i++;
    }
  }
  return tokens;
}

/** Writes tokens back with the spacing they were written with. */
function join(tokens: Token[]): string {
  return tokens.map((t, k) => (k > 0 && t.space ? ` ${t.text}` : t.text)).join('');
}

/** Top-level lists: splits at `,` outside parentheses. */
function splitList(tokens: Token[]): Token[][] {
  const items: Token[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (t.text === '(') depth++;
    if (t.text === ')') depth--;
    if (t.text === ',' && depth === 0) items.push([]);
    else items[items.length - 1]!.push(t);
  }
  return items.filter((item) => item.length);
}

/** Index of the `)` closing the `(` at `open`. */
function closing(tokens: Token[], open: number): number {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    if (tokens[k]!.text === '(') depth++;
    if (tokens[k]!.text === ')' && --depth === 0) return k;
  }
  throw new Error('Unbalanced parentheses in table definition');
}

/** Column clauses and what each starts with. */
type ClauseKind =
  'primary' | 'notnull' | 'null' | 'unique' | 'check' | 'default' | 'collate' | 'references' | 'generated';

interface Clause {
  kind: ClauseKind;
  tokens: Token[];
}

export interface ColumnDefinition {
  name: string;
  type: Token[];
  clauses: Clause[];
}

export interface TableConstraint {
  kind: 'primary' | 'unique' | 'check' | 'foreign';
  tokens: Token[];
  /** Columns of a PRIMARY KEY, UNIQUE or FOREIGN KEY constraint; null entries are expressions. */
  columns: (string | null)[];
  /** FOREIGN KEY: the table and columns it references. */
  references: { table: string; columns: string[] } | null;
}

const CLAUSE_START: Record<string, ClauseKind> = {
  PRIMARY: 'primary',
  NOT: 'notnull',
  NULL: 'null',
  UNIQUE: 'unique',
  CHECK: 'check',
  DEFAULT: 'default',
  COLLATE: 'collate',
  REFERENCES: 'references',
  GENERATED: 'generated',
  AS: 'generated',
};

function startsClause(tokens: Token[], k: number): boolean {
  const word = tokens[k]!.word;
  const prev = tokens[k - 1]?.word ?? '';
  if (word === 'CONSTRAINT') return true;
  if (!(word in CLAUSE_START)) return false;
  if (word === 'NOT') return tokens[k + 1]?.word === 'NULL';
  if (word === 'NULL') return !['NOT', 'DEFAULT', 'SET'].includes(prev);
  if (word === 'AS') return prev !== 'ALWAYS';
  return true;
}

function clauseKind(tokens: Token[]): ClauseKind {
  const head = tokens[0]!.word === 'CONSTRAINT' ? tokens[2] : tokens[0];
  return CLAUSE_START[head?.word ?? ''] ?? 'check';
}

function parseColumn(tokens: Token[]): ColumnDefinition {
  const name = tokens[0]!.name ?? tokens[0]!.text;
  let k = 1;
  let depth = 0;
  const type: Token[] = [];
  for (; k < tokens.length; k++) {
    if (depth === 0 && startsClause(tokens, k)) break;
    if (tokens[k]!.text === '(') depth++;
    if (tokens[k]!.text === ')') depth--;
    type.push(tokens[k]!);
  }
  const clauses: Clause[] = [];
  let current: Token[] = [];
  depth = 0;
  for (; k < tokens.length; k++) {
    // `CONSTRAINT name` belongs to the clause after it.
    const named = current.length === 2 && current[0]!.word === 'CONSTRAINT';
    if (depth === 0 && current.length && !named && startsClause(tokens, k)) {
      clauses.push({ kind: clauseKind(current), tokens: current });
      current = [];
    }
    if (tokens[k]!.text === '(') depth++;
    if (tokens[k]!.text === ')') depth--;
    current.push(tokens[k]!);
  }
  if (current.length) clauses.push({ kind: clauseKind(current), tokens: current });
  return { name, type, clauses };
}

/** The names in a column list; null for an expression. */
function names(tokens: Token[]): (string | null)[] {
  return splitList(tokens).map((item) => {
    let k = 1;
    if (item[k]?.word === 'COLLATE') k += 2;
    if (item[k]?.word === 'ASC' || item[k]?.word === 'DESC') k++;
    return k === item.length ? item[0]!.name : null;
  });
}

function parseConstraint(tokens: Token[]): TableConstraint {
  const at = tokens[0]!.word === 'CONSTRAINT' ? 2 : 0;
  const word = tokens[at]!.word;
  const kind = word === 'PRIMARY' ? 'primary' : word === 'UNIQUE' ? 'unique' : word === 'FOREIGN' ? 'foreign' : 'check';
  let columns: (string | null)[] = [];
  let references: TableConstraint['references'] = null;
  if (kind !== 'check') {
    const open = tokens.findIndex((t, k) => k > at && t.text === '(');
    const close = closing(tokens, open);
    columns = names(tokens.slice(open + 1, close));
    if (kind === 'foreign') {
      const r = tokens.findIndex((t, k) => k > close && t.word === 'REFERENCES');
      const table = tokens[r + 1]!;
      const list = tokens[r + 2]?.text === '(' ? names(tokens.slice(r + 3, closing(tokens, r + 2))) : [];
      references = { table: table.name ?? table.text, columns: list.filter((c): c is string => c !== null) };
    }
  }
  return { kind, tokens, columns, references };
}

/** The table a REFERENCES clause names, and its columns. */
function referenced(clause: Clause): { table: string; columns: string[] } {
  const r = clause.tokens.findIndex((t) => t.word === 'REFERENCES');
  const table = clause.tokens[r + 1]!;
  const list =
    clause.tokens[r + 2]?.text === '(' ? names(clause.tokens.slice(r + 3, closing(clause.tokens, r + 2))) : [];
  return { table: table.name ?? table.text, columns: list.filter((c): c is string => c !== null) };
}

/** SQLite compares identifiers without regard to case. */
export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export class TableDefinition {
  private constructor(
    public table: string,
    public columns: ColumnDefinition[],
    public constraints: TableConstraint[],
    /** Table options after the definition (WITHOUT ROWID, STRICT). */
    private readonly options: Token[],
  ) {}

  static parse(sql: string): TableDefinition {
    const tokens = tokenize(sql);
    const open = tokens.findIndex((t) => t.text === '(');
    if (open < 2) throw new Error('Not a CREATE TABLE statement');
    const name = tokens[open - 1]!;
    const close = closing(tokens, open);
    const columns: ColumnDefinition[] = [];
    const constraints: TableConstraint[] = [];
    for (const item of splitList(tokens.slice(open + 1, close))) {
      if (['CONSTRAINT', 'PRIMARY', 'UNIQUE', 'CHECK', 'FOREIGN'].includes(item[0]!.word))
        constraints.push(parseConstraint(item));
      else columns.push(parseColumn(item));
    }
    return new TableDefinition(name.name ?? name.text, columns, constraints, tokens.slice(close + 1));
  }

  column(name: string): ColumnDefinition {
    const column = this.columns.find((c) => sameName(c.name, name));
    if (!column) throw new Error(`Column ${name} not found in ${this.table}`);
    return column;
  }

  /** A column computed by the database (GENERATED ALWAYS AS / AS): not copied, computed again. */
  generated(name: string): boolean {
    return this.column(name).clauses.some((c) => c.kind === 'generated');
  }

  addColumn(name: string, type: string, clauses: string[]): void {
    this.columns.push({
      name,
      type: tokenize(type),
      clauses: clauses.map((text) => ({ kind: clauseKind(tokenize(text)), tokens: tokenize(text) })),
    });
  }

  dropColumn(name: string): void {
    this.columns = this.columns.filter((c) => !sameName(c.name, name));
    this.constraints = this.constraints.filter((c) => {
      if (c.kind === 'foreign')
        return (
          !c.columns.some((n) => n !== null && sameName(n, name)) &&
          !(sameName(c.references!.table, this.table) && c.references!.columns.some((n) => sameName(n, name)))
        );
      if (c.kind === 'unique' || c.kind === 'primary') return !c.columns.some((n) => n !== null && sameName(n, name));
      return true;
    });
    // Self-references to the dropped column go too.
    for (const other of this.columns) {
      other.clauses = other.clauses.filter((c) => {
        if (c.kind !== 'references') return true;
        const ref = referenced(c);
        return !(sameName(ref.table, this.table) && ref.columns.some((n) => sameName(n, name)));
      });
    }
  }

  setType(name: string, type: string): void {
    this.column(name).type = tokenize(type);
  }

  setNotNull(name: string, notNull: boolean): void {
    const column = this.column(name);
    column.clauses = column.clauses.filter((c) => c.kind !== 'notnull' && c.kind !== 'null');
    if (notNull) column.clauses.push({ kind: 'notnull', tokens: tokenize('not null') });
  }

  /** `sql`: the default as SQL (a literal or CURRENT_TIMESTAMP), null for none. */
  setDefault(name: string, sql: string | null): void {
    const column = this.column(name);
    column.clauses = column.clauses.filter((c) => c.kind !== 'default');
    if (sql !== null) column.clauses.push({ kind: 'default', tokens: tokenize(`default ${sql}`) });
  }

  /** Drops UNIQUE for this column: its own clause, or a one-column table constraint. */
  removeUnique(name: string): void {
    const column = this.column(name);
    column.clauses = column.clauses.filter((c) => c.kind !== 'unique');
    this.constraints = this.constraints.filter(
      (c) => !(c.kind === 'unique' && c.columns.length === 1 && c.columns[0] !== null && sameName(c.columns[0], name)),
    );
  }

  /** Drops the column's foreign keys (only those to `referencing`, when given). */
  removeForeignKeys(name: string, referencing?: { table: string; column: string }): void {
    const matches = (ref: { table: string; columns: string[] }) =>
      !referencing ||
      (sameName(ref.table, referencing.table) &&
        (ref.columns.length === 0 || ref.columns.some((c) => sameName(c, referencing.column))));
    const column = this.column(name);
    column.clauses = column.clauses.filter((c) => !(c.kind === 'references' && matches(referenced(c))));
    this.constraints = this.constraints.filter(
      (c) =>
        !(c.kind === 'foreign' && c.columns.some((n) => n !== null && sameName(n, name)) && matches(c.references!)),
    );
  }

  addReference(name: string, table: string, column: string, onDelete: string | null, onUpdate: string | null): void {
    const actions = `${onDelete ? ` on delete ${onDelete}` : ''}${onUpdate ? ` on update ${onUpdate}` : ''}`;
    this.column(name).clauses.push({
      kind: 'references',
      tokens: tokenize(`references ${quoteName(table)} (${quoteName(column)})${actions}`),
    });
  }

  toSql(): string {
    const columns = this.columns.map((c) =>
      [quoteName(c.name), join(c.type), ...c.clauses.map((clause) => join(clause.tokens))].filter(Boolean).join(' '),
    );
    const items = [...columns, ...this.constraints.map((c) => join(c.tokens))];
    const options = this.options.length ? ` ${join(this.options)}` : '';
    return `create table ${quoteName(this.table)} (${items.join(', ')})${options}`;
  }
}

/** The plain columns a CREATE INDEX text indexes (null for expressions). */
export function indexColumns(sql: string): (string | null)[] {
  const tokens = tokenize(sql);
  const on = tokens.findIndex((t) => t.word === 'ON');
  const open = tokens.findIndex((t, k) => k > on && t.text === '(');
  return names(tokens.slice(open + 1, closing(tokens, open)));
}
