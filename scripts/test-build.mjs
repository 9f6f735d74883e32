// Bundles each test file (and the template builder) once per `npm test` run into build/test-js/ (esbuild, same layout,
// packages left to node_modules, code shared by several files split into chunks), so that a test process loads a few
// plain JavaScript files instead of loading tsx and going through its hooks for every module (importing
// test/helpers/test-app.ts took 2.9 CPU s through tsx), or resolving and compiling some 400 modules one by one (0.3 to
// 0.4 CPU s more than the bundle). Stack traces still point at the .ts lines (source maps, --enable-source-maps).
//
// `import.meta.url`, `import.meta.dirname` and `import.meta.filename` are replaced by the source file's own, so
// that paths a module computes from its location (fixtures, snapshots, package.json, dist/studio) are the same
// as under tsx.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Builds build/test-js/ with one bundle per entry (absolute .ts paths); returns that folder, or null when esbuild is
 * not installed. An entry's bundle is at its own path there, as .js.
 */
export async function buildTestJs(root, entries) {
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
    entryPoints: entries,
    outdir,
    outbase: root,
    bundle: true,
    splitting: true,
    packages: 'external',
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    // The maps point at the .ts files, which are there: without their text in the map, each loads faster.
    sourcesContent: false,
    plugins: [ownLocation],
    logLevel: 'warning',
  });
  return outdir;
}
