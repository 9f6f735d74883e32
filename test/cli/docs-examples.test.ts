/**
 * What the README and docs/ say about the command line holds: every `strata` command they show (as `strata …`,
 * `npx strata …` or `node dist/cli/index.js …`) names a real command and only flags it has, `npx strata` is
 * documented, and the README's EBADENGINE note names every installed package whose declared Node range leaves out
 * Node 20.19 (what `npm ci` warns about there).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cliInProcess } from './cli-in-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'), { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.md'))
    .map((file) => path.join('docs', file)),
];
/** Commands with subcommands of their own. */
const GROUPS = new Set(['schema', 'users', 'roles']);
const PROGRAM = /(?:^|[\s`(;&|])(?:npx strata|strata|node dist\/cli\/index\.js)\s+([a-z][^`\n|]*)/g;

/** Each `strata` command line shown in a code block or inline code of a document: [file, its words]. */
function commandLines(): [string, string[]][] {
  const found: [string, string[]][] = [];
  for (const file of DOCS) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const code = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    code.push(...[...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!));
    for (const snippet of code)
      for (const line of snippet.split('\n'))
        for (const match of line.replace(/#.*$/, '').matchAll(PROGRAM)) {
          const words = match[1]!
            .trim()
            .split(/\s+/)
            .map((word) => word.replace(/^\[/, ''));
          found.push([file, words]);
        }
  }
  return found;
}

/** The oldest Node 20 Strata supports is outside a package's declared `engines.node` range. */
function leavesOutNode20(range: string): boolean {
  const allows = (alternative: string): boolean => {
    const bound = /^(>=|>|\^|~|=)?\s*v?(\d+)(?:\.(\d+|x))?/.exec(alternative.trim());
    if (!bound) return true;
    const major = Number(bound[2]);
    const minor = bound[3] === undefined || bound[3] === 'x' ? 0 : Number(bound[3]);
    const lower = major < 20 || (major === 20 && minor <= 19);
    if (bound[1] === '>=' || bound[1] === '>') return lower;
    return major === 20 && lower;
  };
  return !range.split('||').some((alternative) => alternative.trim() === '*' || allows(alternative));
}

describe('the command line as the docs show it', () => {
  it('every command shown exists and takes the flags it is shown with', async () => {
    const lines = commandLines();
    assert.ok(lines.length >= 8, `found ${lines.length} command lines`);
    const helps = new Map<string, string>();
    for (const [file, words] of lines) {
      const command = GROUPS.has(words[0]!) && words[1] && !words[1].startsWith('-') ? words.slice(0, 2) : [words[0]!];
      const key = command.join(' ');
      if (!helps.has(key)) {
        const help = await cliInProcess([...command, '--help'], { cwd: tmpdir(), env: { LOG_LEVEL: 'silent' } });
        assert.equal(help.status, 0, `${file}: strata ${key} is not a command\n${help.stderr}`);
        helps.set(key, help.stdout);
      }
      for (const flag of words
        .filter((word) => /^--?[a-z]/.test(word))
        .map((word) => word.replace(/[=,.)\]\\]+.*$/, '')))
        assert.match(helps.get(key)!, new RegExp(`(^|[\\s,])${flag}\\b`), `${file}: strata ${key} has no ${flag}`);
    }
  });

  it('every curl example with brackets in its URL has -g (curl reads them as its own patterns otherwise)', () => {
    let checked = 0;
    for (const file of DOCS) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g))
        for (const line of block[1]!.replace(/\\\n/g, ' ').split('\n')) {
          if (!/(^|[\s(])curl\s/.test(line) || !/https?:\/\/\S*\[|"\$URL\S*\[/.test(line)) continue;
          checked += 1;
          assert.match(line, /curl\s+(-\S*\s+)*-[a-zA-Z]*g/, `${file}: ${line}`);
        }
    }
    assert.ok(checked >= 3, `checked ${checked} curl lines`);
  });

  it('npx strata is documented', () => {
    assert.match(readFileSync(path.join(ROOT, 'docs/cli.md'), 'utf8'), /`npx strata <command>`/);
  });

  it("the README's EBADENGINE note names every package that declares a Node range without Node 20", () => {
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const warned = Object.entries(lock.packages)
      .filter(([where, pkg]) => where !== '' && !Array.isArray(pkg.engines) && pkg.engines?.node)
      .filter(([, pkg]) => leavesOutNode20((pkg.engines as { node: string }).node))
      .map(
        ([where, pkg]) =>
          `${where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${pkg.version!.split('.')[0]}`,
      );
    assert.ok(warned.length > 0, 'some package declares Node 22 (else this note can go)');
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const note = readme.slice(readme.indexOf('EBADENGINE'), readme.indexOf('\n\n', readme.indexOf('EBADENGINE')));
    for (const name of new Set(warned)) assert.ok(note.includes(`\`${name}\``), `the note names ${name}: ${note}`);
  });
});
