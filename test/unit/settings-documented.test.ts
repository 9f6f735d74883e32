/**
 * Every environment variable the code reads is documented in docs/settings.md, and every variable that page's tables
 * name is read. Names are taken from src/'s syntax trees: string arguments of calls that pass `env` (`int(env,
 * 'PORT', …)`), names composed by a helper from a prefix (`limit(env, 'RATE_LIMITER_LOGIN', …)` whose body reads
 * `${prefix}_POINTS`), `env['X']`, `env.X` / `process.env.X` and `const { X } = …env`.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const isEnv = (node: ts.Node): boolean =>
  (ts.isIdentifier(node) && node.text === 'env') || (ts.isPropertyAccessExpression(node) && node.name.text === 'env');

const literalText = (node: ts.Node): string | null =>
  ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : null;

/** Functions of one file that read `${param}_SUFFIX`: which parameter is the prefix, and the suffixes. */
function prefixHelpers(source: ts.SourceFile): Map<string, { index: number; suffixes: Set<string> }> {
  const helpers = new Map<string, { index: number; suffixes: Set<string> }>();
  const visit = (node: ts.Node, fn: ts.FunctionDeclaration | null): void => {
    if (ts.isFunctionDeclaration(node)) fn = node;
    if (fn?.name && ts.isTemplateExpression(node) && node.head.text === '' && node.templateSpans.length === 1) {
      const [span] = node.templateSpans;
      const index = fn.parameters.findIndex(
        (p) => ts.isIdentifier(p.name) && p.name.text === span.expression.getText(),
      );
      if (index >= 0 && /^_[A-Z0-9_]+$/.test(span.literal.text)) {
        const helper = helpers.get(fn.name.text) ?? { index, suffixes: new Set<string>() };
        helper.suffixes.add(span.literal.text);
        helpers.set(fn.name.text, helper);
      }
    }
    ts.forEachChild(node, (child) => visit(child, fn));
  };
  visit(source, null);
  return helpers;
}

/** The environment variables one source text reads. */
export function variablesRead(file: string, text: string): Set<string> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const helpers = prefixHelpers(source);
  const found = new Set<string>();
  const add = (name: string | null) => {
    if (name !== null && NAME.test(name)) found.add(name);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.arguments.some(isEnv)) {
      const helper = ts.isIdentifier(node.expression) ? helpers.get(node.expression.text) : undefined;
      node.arguments.forEach((argument, index) => {
        const value = literalText(argument);
        if (value !== null && helper && index === helper.index)
          for (const suffix of helper.suffixes) add(value + suffix);
        else add(value);
      });
    } else if (ts.isElementAccessExpression(node) && isEnv(node.expression)) {
      add(literalText(node.argumentExpression));
    } else if (ts.isPropertyAccessExpression(node) && isEnv(node.expression)) {
      add(node.name.text);
    } else if (ts.isVariableDeclaration(node) && node.initializer && isEnv(node.initializer)) {
      if (ts.isObjectBindingPattern(node.name))
        for (const element of node.name.elements)
          add((element.propertyName ?? element.name).getText(source).replace(/^['"]|['"]$/g, ''));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

let read: Set<string> | undefined;

function codeVariables(): Set<string> {
  if (read) return read;
  read = new Set<string>();
  for (const file of sourceFiles(path.join(ROOT, 'src')))
    for (const name of variablesRead(file, readFileSync(file, 'utf8'))) read.add(name);
  return read;
}

/** Variables the page names in backticks anywhere, and those its tables give a row of their own. */
function documented(): { named: Set<string>; rows: Set<string> } {
  const page = readFileSync(path.join(ROOT, 'docs/settings.md'), 'utf8');
  const named = new Set([...page.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]));
  const rows = new Set([...page.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/gm)].map((m) => m[1]));
  return { named, rows };
}

describe('settings documented', () => {
  it('finds the variables read through helpers, prefixes, property access and destructuring', () => {
    const read = codeVariables();
    for (const name of [
      'PORT',
      'DB_CLIENT',
      'RATE_LIMITER_LOGIN_DURATION',
      'SESSION_COOKIE_SAME_SITE',
      'WEBSOCKETS_GRAPHQL_CONN_LIMIT',
      'NO_COLOR',
    ])
      assert.ok(read.has(name), `${name} is found`);
    for (const prefix of ['RATE_LIMITER_LOGIN', 'SESSION_COOKIE', 'REFRESH_TOKEN_COOKIE'])
      assert.ok(!read.has(prefix), `${prefix} is a prefix, not a variable`);
    const sample = `function pair(env: Env, prefix: string) { return [int(env, \`\${prefix}_A\`), str(env, \`\${prefix}_B\`)]; }
      export const x = pair(env, 'NEW_PAIR'); const { NEW_DESTRUCTURED } = io.env; const y = process.env.NEW_PROPERTY;`;
    assert.deepEqual([...variablesRead('sample.ts', sample)].sort(), [
      'NEW_DESTRUCTURED',
      'NEW_PAIR_A',
      'NEW_PAIR_B',
      'NEW_PROPERTY',
    ]);
  });

  it('every variable the code reads is on docs/settings.md, with a row of its own', () => {
    const { rows } = documented();
    const missing = [...codeVariables()].filter((name) => !rows.has(name)).sort();
    assert.deepEqual(missing, [], `read by src/ but not documented in docs/settings.md: ${missing.join(', ')}`);
  });

  it('every variable docs/settings.md gives a row is read by the code', () => {
    const read = codeVariables();
    const stale = [...documented().rows].filter((name) => !read.has(name)).sort();
    assert.deepEqual(stale, [], `documented in docs/settings.md but read nowhere in src/: ${stale.join(', ')}`);
  });
});
