/**
 * The extensions of EXTENSIONS_PATH, in Directus's folder layout: a folder per extension whose package.json has a
 * `directus:extension` object with `type` (hook, endpoint, bundle) and the built entry (`path`, a file, or for a
 * bundle `path.api`). Folders without one, of another type (app extensions: interfaces, displays… are Studio's, not
 * the server's), or whose entry escapes the folder are skipped with a reason.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export type ServerExtensionType = 'hook' | 'endpoint' | 'bundle';

export interface ExtensionManifest {
  /** The package name (or folder name). */
  name: string;
  type: ServerExtensionType;
  /** Absolute path of the ES module to import. */
  entry: string;
}

export interface ScanResult {
  found: ExtensionManifest[];
  skipped: { folder: string; reason: string }[];
}

const TYPES: ReadonlySet<string> = new Set(['hook', 'endpoint', 'bundle']);
const APP_TYPES: ReadonlySet<string> = new Set(['interface', 'display', 'layout', 'module', 'panel', 'theme']);

export async function scanExtensions(root: string): Promise<ScanResult> {
  const result: ScanResult = { found: [], skipped: [] };
  let names: string[];
  try {
    names = (await readdir(root, { withFileTypes: true }))
      .filter((d) => d.isDirectory() && !d.name.startsWith('.') && d.name !== 'node_modules')
      .map((d) => d.name)
      .sort();
  } catch {
    return result;
  }
  for (const folder of names) {
    const dir = path.resolve(root, folder);
    const read = await manifestOf(dir, folder);
    if (typeof read === 'string') result.skipped.push({ folder, reason: read });
    else if (read) result.found.push(read);
  }
  return result;
}

async function manifestOf(dir: string, folder: string): Promise<ExtensionManifest | string | null> {
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return 'no readable package.json';
  }
  const meta = pkg['directus:extension'];
  if (!meta || typeof meta !== 'object') return 'package.json has no "directus:extension"';
  const { type, path: entryPath } = meta as { type?: unknown; path?: unknown };
  if (typeof type === 'string' && APP_TYPES.has(type)) return null;
  if (typeof type !== 'string' || !TYPES.has(type)) return `type "${String(type)}" is not hook, endpoint or bundle`;
  const relative =
    typeof entryPath === 'string'
      ? entryPath
      : entryPath && typeof entryPath === 'object' && typeof (entryPath as { api?: unknown }).api === 'string'
        ? (entryPath as { api: string }).api
        : null;
  if (!relative) return '"directus:extension" names no "path" (the built entry)';
  const entry = path.resolve(dir, relative);
  if (!entry.startsWith(dir + path.sep)) return `its path "${relative}" leaves the extension's folder`;
  const name = typeof pkg.name === 'string' && pkg.name ? pkg.name : folder;
  return { name, type: type as ServerExtensionType, entry };
}
