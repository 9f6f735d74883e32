/**
 * What a failing hook answers: a ServiceError as it is; an error of Directus's shape (`@directus/errors` createError:
 * a string `code` and an HTTP `status`) with its own code, status and message; anything else refuses the write as
 * INVALID_PAYLOAD with the hook's message (a hook that throws means "no", never a 500 or a stack trace).
 */
import { InvalidPayloadError, ServiceError, ServiceUnavailableError } from '../../errors/catalogue.js';

const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

export function hookError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  if (error instanceof Error) {
    const { code, status } = error as Error & { code?: unknown; status?: unknown };
    const extensions = (error as { extensions?: unknown }).extensions;
    if (typeof code === 'string' && CODE.test(code) && typeof status === 'number' && status >= 400 && status < 600)
      return new ServiceError(code, status, String(error.message).slice(0, 1000), plainObject(extensions));
    return new InvalidPayloadError(String(error.message || 'Refused by a hook').slice(0, 1000));
  }
  return new InvalidPayloadError(typeof error === 'string' ? error.slice(0, 1000) : 'Refused by a hook');
}

/** A filter hook that did not settle within EXTENSIONS_FILTER_TIMEOUT. */
export function hookTimeoutError(event: string, ms: number): ServiceError {
  return new ServiceUnavailableError('hook', `A "${event}" filter did not answer within ${ms}ms`);
}

function plainObject(value: unknown): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value))
    if (k !== '__proto__' && k !== 'constructor' && k !== 'prototype') out[k] = v;
  return out;
}
