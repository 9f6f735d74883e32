// Builds Strata Studio (studio/ → dist/studio) when the build is missing or older than its sources. Used by
// `npm start` and `npm test`, so a fresh clone serves and tests the app without a separate step.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

/** Returns the exit status of the build (0 when nothing had to be built). */
export function ensureStudio(root) {
  const index = path.join(root, 'dist', 'studio', 'index.html');
  const sources = path.join(root, 'studio');
  if (existsSync(index) && newest(sources) <= statSync(index).mtimeMs) return 0;
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!existsSync(vite)) {
    process.stderr.write(
      'Strata Studio is not built and vite is not installed (npm ci installs it); /admin will answer 503.\n',
    );
    return 0;
  }
  const built = spawnSync(
    process.execPath,
    [vite, 'build', '--config', path.join(sources, 'vite.config.ts'), '--logLevel', 'warn'],
    { stdio: 'inherit', cwd: root },
  );
  return built.status ?? 1;
}
