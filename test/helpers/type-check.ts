/**
 * Type-checks a small program with the TypeScript compiler in this process, as `tsc --noEmit` would with the
 * options given, and returns tsc's exit status and its diagnostics. A test file checks several programs (one per
 * database, a working and a broken one): each check after the first reuses the declaration files the first one
 * parsed (TypeScript's own lib files, @directus/sdk's), where a tsc process per check loaded TypeScript and parsed
 * them again every time.
 */
import path from 'node:path';
import ts from 'typescript';

/** Parsed declaration files from node_modules, shared by every program this process checks (they do not change). */
const parsed = new Map<string, ts.SourceFile | undefined>();

export interface TypeCheckResult {
  status: number;
  output: string;
}

/** As `tsc <options> <files>` run in `dir` (which decides, as for tsc, which node_modules/@types are seen). */
export function typeCheck(dir: string, files: string[], options: ts.CompilerOptions): TypeCheckResult {
  const host = ts.createCompilerHost(options);
  host.getCurrentDirectory = () => dir;
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!fileName.includes('/node_modules/') || !fileName.endsWith('.d.ts'))
      return read(fileName, languageVersion, onError, shouldCreate);
    const format = typeof languageVersion === 'object' ? languageVersion.impliedNodeFormat : undefined;
    const key = `${format ?? ''}:${fileName}`;
    if (!parsed.has(key)) parsed.set(key, read(fileName, languageVersion, onError, shouldCreate));
    return parsed.get(key);
  };
  const program = ts.createProgram({ rootNames: files.map((file) => path.resolve(dir, file)), options, host });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const output = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => dir,
    getNewLine: () => '\n',
  });
  // tsc's exit status: 0, or 2 when there are errors (it emits nothing here either way).
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  return { status: errors.length === 0 ? 0 : 2, output };
}

/** tsc's `--noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext --lib es2022,dom --skipLibCheck`. */
export const STRICT_NODENEXT: ts.CompilerOptions = {
  noEmit: true,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  skipLibCheck: true,
};
