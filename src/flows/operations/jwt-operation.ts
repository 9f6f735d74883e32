/**
 * Directus's json-web-token operation with fast-jwt: `operation` `sign` (`payload`, `secret`, `options`:
 * `algorithm` HS256/HS384/HS512, `expiresIn` in seconds or a time span such as `1h`, `issuer`, `subject`,
 * `audience`), `verify` (`token`, `secret`, `options`: `algorithms`, `issuer`, `audience`) or `decode` (`token`, no
 * check; `options.complete` for header and signature too). A bad or expired token fails the operation.
 */
import { createDecoder, createSigner, createVerifier } from 'fast-jwt';
import { asRecord } from '../safe-objects.js';
import { OperationError, type OperationHandler } from './operation-context.js';

const ALGORITHMS = new Set(['HS256', 'HS384', 'HS512']);
type Hmac = 'HS256' | 'HS384' | 'HS512';

function secretOf(options: Record<string, unknown>): string {
  const secret = options.secret;
  if (typeof secret !== 'string' || secret === '') throw new OperationError('No secret given', null);
  return secret;
}

function algorithm(value: unknown): Hmac {
  const name = value === undefined || value === null || value === '' ? 'HS256' : String(value);
  if (!ALGORITHMS.has(name))
    throw new OperationError(`Algorithm "${name}" is not supported (HS256, HS384, HS512)`, null);
  return name as Hmac;
}

/** jsonwebtoken's expiresIn: a number is seconds; fast-jwt's a number of milliseconds or a time span. */
function span(value: unknown): number | string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'number' || /^\d+$/.test(String(value)) ? Number(value) * 1000 : String(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export const jsonWebToken: OperationHandler = async (options) => {
  const settings = asRecord(options.options);
  try {
    if (options.operation === 'sign') {
      const expiresIn = span(settings.expiresIn);
      const sign = createSigner({
        key: secretOf(options),
        algorithm: algorithm(settings.algorithm),
        ...(expiresIn !== undefined ? { expiresIn } : {}),
        ...(text(settings.issuer) ? { iss: text(settings.issuer) } : {}),
        ...(text(settings.subject) ? { sub: text(settings.subject) } : {}),
        ...(text(settings.audience) ? { aud: text(settings.audience) } : {}),
      });
      const payload = options.payload;
      return sign(typeof payload === 'string' ? payload : asRecord(payload));
    }
    const token = String(options.token ?? '');
    if (options.operation === 'verify') {
      const list = Array.isArray(settings.algorithms) ? settings.algorithms.map(algorithm) : ['HS256' as Hmac];
      const verify = createVerifier({
        key: secretOf(options),
        algorithms: list,
        ...(text(settings.issuer) ? { allowedIss: text(settings.issuer) } : {}),
        ...(text(settings.audience) ? { allowedAud: text(settings.audience) } : {}),
      });
      return verify(token);
    }
    if (options.operation === 'decode') return createDecoder({ complete: settings.complete === true })(token);
  } catch (error) {
    if (error instanceof OperationError) throw error;
    throw new OperationError((error as Error).message, { message: (error as Error).message });
  }
  throw new OperationError('operation must be sign, verify or decode', null);
};
