/**
 * No import cycle between files of src/: a cycle means two modules that cannot be understood (or loaded) one before
 * the other. Every kind of import counts: value imports, type-only ones (`import type`, `{ type X }`,
 * `import('./x.js').T`) and re-exports, because a type shared both ways is as much a knot in the design as a value
 * (it belongs in a third file both read). A dynamic `import()` counts too. Mutual recursion inside one file is not a
 * cycle here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The src/ files a file imports, in any way (relative specifiers only: packages cannot close a cycle). */
export function fileImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const add = (specifier: ts.Node | undefined) => {
    if (!specifier || !ts.isStringLiteralLike(specifier) || !specifier.text.startsWith('.')) return;
    found.push(path.resolve(path.dirname(file), specifier.text.replace(/\.js$/, '.ts')));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Strongly connected components of more than one file (Tarjan), each as a sorted list of paths relative to src/. */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) !== indices.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.map((file) => path.relative(SRC, file)).sort());
  };
  for (const node of graph.keys()) if (!indices.has(node)) connect(node);
  return cycles;
}

describe('import cycles', () => {
  it('finds a cycle of imports of every kind', () => {
    const a = path.join(SRC, 'a.ts');
    const b = path.join(SRC, 'b.ts');
    const c = path.join(SRC, 'c.ts');
    assert.deepEqual(
      fileImports(
        a,
        "import { x } from './b.js';\nimport type { Y } from './c.js';\nimport { type Z } from './c.js';\nimport 'pkg';",
      ),
      [b, c, c],
    );
    assert.deepEqual(fileImports(b, "export { x } from './a.js';\nexport type { Y } from './c.js';"), [a, c]);
    assert.deepEqual(fileImports(c, "let t: import('./a.js').T;\nconst m = () => import('./b.js');"), [a, b]);
    assert.deepEqual(
      importCycles(
        new Map([
          [a, [b]],
          [b, [a, c]],
          [c, []],
        ]),
      ),
      [['a.ts', 'b.ts']],
    );
    assert.deepEqual(
      importCycles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, []],
        ]),
      ),
      [],
    );
  });

  it('src/ has no cycle of imports between files', () => {
    const graph = new Map(sourceFiles(SRC).map((file) => [file, fileImports(file, readFileSync(file, 'utf8'))]));
    assert.ok(graph.size > 50, `read ${graph.size} files`);
    const cycles = importCycles(graph);
    assert.deepEqual(cycles, [], `import cycles:\n${cycles.map((cycle) => cycle.join(' ↔ ')).join('\n')}`);
  });
});
