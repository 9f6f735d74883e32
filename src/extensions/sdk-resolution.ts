/**
 * `@directus/extensions-sdk` (and `@directus/extensions`; `@directus/errors` to a createError of the same shape) resolve, for any module, to a small module of Strata's
 * whose define* functions answer their argument, as the SDK's do: an extension that imports them only for
 * defineHook / defineEndpoint / defineOperationApi runs unchanged without the SDK installed. Done with a resolve hook
 * (node:module `register`), installed once per process.
 */
import { register } from 'node:module';

const SHIM = [
  'const identity = (config) => config;',
  'export const defineHook = identity;',
  'export const defineEndpoint = identity;',
  'export const defineOperationApi = identity;',
  'export const defineOperationApp = identity;',
  'export const defineExtension = identity;',
  'export default { defineHook: identity, defineEndpoint: identity, defineOperationApi: identity };',
].join('\n');

/** `@directus/errors`'s createError: a class whose errors carry `code`, `status` and `extensions`. */
const ERRORS = [
  'export function createError(code, message, status = 500) {',
  '  return class extends Error {',
  '    constructor(extensions, options) {',
  '      super(typeof message === "function" ? message(extensions) : message, options);',
  '      this.name = "DirectusError"; this.code = code; this.status = status; this.extensions = extensions;',
  '    }',
  '  };',
  '}',
  'export function isDirectusError(e, code) { return !!e && typeof e === "object" && typeof e.code === "string" && (code === undefined || e.code === code); }',
  'export const ErrorCode = {};',
].join('\n');

const SHIM_URL = `data:text/javascript,${encodeURIComponent(SHIM)}`;

const ERRORS_URL = `data:text/javascript,${encodeURIComponent(ERRORS)}`;

const HOOK = `
const names = new Set(['@directus/extensions-sdk', '@directus/extensions']);
export async function resolve(specifier, context, next) {
  if (names.has(specifier)) return { url: ${JSON.stringify(SHIM_URL)}, shortCircuit: true };
  if (specifier === '@directus/errors') return { url: ${JSON.stringify(ERRORS_URL)}, shortCircuit: true };
  return next(specifier, context);
}
`;

let registered = false;

export function registerSdkResolution(): void {
  if (registered) return;
  registered = true;
  register(`data:text/javascript,${encodeURIComponent(HOOK)}`);
}
