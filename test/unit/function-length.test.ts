/**
 * No function in src/ over 100 lines (docs/architecture.md: functions ≤ 100 lines): a longer one is several steps
 * that want names of their own. Every function counts (declarations, methods, constructors, accessors, function
 * expressions and arrows), by the lines of its body, nested functions included.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const MAX_LINES = 100;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name)))
    return node.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '<anonymous>';
}

export interface LongFunction {
  /** `path/relative/to/src.ts name`. */
  id: string;
  line: number;
  lines: number;
}

/** The functions of a file whose body runs over `max` lines. */
export function longFunctions(file: string, text: string, max = MAX_LINES): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const body = node.body as ts.Node;
      const first = source.getLineAndCharacterOfPosition(body.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(body.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) {
        found.push({
          id: `${path.relative(SRC, file)} ${nameOf(node as ts.FunctionLikeDeclaration)}`,
          line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
          lines,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  it('measures every kind of function by its body', () => {
    const file = path.join(SRC, 'x.ts');
    const body = (n: number) => `{\n${'  a();\n'.repeat(n - 2)}}`;
    const text = [
      `function long() ${body(4)}`,
      `class C { method() ${body(5)} }`,
      `const arrow = () => ${body(3)};`,
      `const short = () => ${body(2)};`,
    ].join('\n');
    assert.deepEqual(
      longFunctions(file, text, 2).map((f) => `${f.id} ${f.lines}`),
      ['x.ts long 4', 'x.ts method 5', 'x.ts arrow 3'],
    );
  });

  it(`no function in src/ is over ${MAX_LINES} lines`, () => {
    const files = sourceFiles(SRC);
    assert.ok(files.length > 50, `read ${files.length} files`);
    const long = files.flatMap((file) => longFunctions(file, readFileSync(file, 'utf8')));
    assert.deepEqual(
      long.map((f) => `${f.id} (line ${f.line}): ${f.lines} lines`),
      [],
      'functions over the limit',
    );
  });
});
