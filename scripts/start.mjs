// `npm start`: build when dist/ (or dist/studio, the admin app) is missing or older than its sources, then `strata start` (which bootstraps if needed).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { ensureNative } from './build-native.mjs';
import { ensureStudio, newest } from './studio-build.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const entry = path.join(root, 'dist', 'cli', 'index.js');

if (!existsSync(entry) || newest(path.join(root, 'src')) > statSync(entry).mtimeMs) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

ensureNative(root);
if (process.env.ADMIN_APP_ENABLED !== 'false' && ensureStudio(root) !== 0) process.exit(1);

// The server is a child process: pass stop signals on, and leave with its exit code.
const server = spawn(process.execPath, [entry, 'start', ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
