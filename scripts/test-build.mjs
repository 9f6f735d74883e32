// Transpiles src/, test/ and bench/ (which some tests import) once per `npm test` run into build/test-js/ (esbuild, one .js per .ts, same layout),
// so that each test process loads plain JavaScript instead of loading tsx and going through its hooks for every
// module: a test process then starts in about half the CPU time (measured: importing test/helpers/test-app.ts
// took 2.9 CPU s through tsx). Stack traces still point at the .ts lines (source maps, --enable-source-maps).
//
// `import.meta.url`, `import.meta.dirname` and `import.meta.filename` are replaced by the source file's own, so
// that paths a module computes from its location (fixtures, snapshots, package.json, dist/studio) are the same
// as under tsx.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

function tsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Builds build/test-js/ from src/, test/ and bench/; returns that folder, or null when esbuild is not installed. */
export async function buildTestJs(root) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return null;
  }
  const outdir = path.join(root, 'build', 'test-js');
  rmSync(outdir, { recursive: true, force: true });
  const ownLocation = {
    name: 'own-location',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8')
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
          .replaceAll('import.meta.filename', JSON.stringify(args.path));
        return { contents: source, loader: 'ts' };
      });
    },
  };
  await esbuild.build({
    entryPoints: ['src', 'test', 'bench'].flatMap((dir) => tsFiles(path.join(root, dir))),
    outdir,
    outbase: root,
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    plugins: [ownLocation],
    logLevel: 'warning',
  });
  return outdir;
}
