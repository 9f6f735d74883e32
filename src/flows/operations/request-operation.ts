/**
 * Directus's request operation: url, method, headers (`[{header, value}]`), body. Bounded by FLOWS_REQUEST_TIMEOUT
 * and FLOWS_RESPONSE_MAX_SIZE; signed (signing.ts) with the operation's `secret`, else the flow's, else
 * FLOWS_SIGNING_SECRET. A non-2xx answer fails the operation (the reject path sees the response), as Directus's.
 */
import { signedHeaders } from '../signing.js';
import { OperationError, type OperationHandler } from './operation-context.js';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

function headerList(value: unknown): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  const entries: unknown[] = Array.isArray(value) ? value : [];
  for (const entry of entries) {
    if (!entry || typeof entry !== 'object') continue;
    const { header, value: text } = entry as { header?: unknown; value?: unknown };
    if (typeof header === 'string' && /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(header)) out[header] = String(text ?? '');
  }
  return out;
}

async function readCapped(response: Response, max: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > max) throw new OperationError(`The response is larger than ${max} bytes`, { status: response.status });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += (chunk as Uint8Array).byteLength;
    if (size > max) throw new OperationError(`The response is larger than ${max} bytes`, { status: response.status });
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks).toString('utf8');
}

export const request: OperationHandler = async (options, context) => {
  const { config } = context.services;
  const method = String(options.method ?? 'GET').toUpperCase();
  if (!METHODS.has(method)) throw new OperationError(`Unknown method "${method}"`, null);
  let url: URL;
  try {
    url = new URL(String(options.url ?? ''));
  } catch {
    throw new OperationError('The request URL is not a URL', null);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OperationError('The request URL must be http or https', null);
  const headers = headerList(options.headers);
  const raw = options.body;
  const body = raw === undefined || raw === null || method === 'GET' || method === 'HEAD' ? '' : raw;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (typeof body !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  const secret =
    (typeof options.secret === 'string' && options.secret) || context.flowSecret || config.flows.signingSecret;
  if (secret) Object.assign(headers, signedHeaders(secret, text));
  const signal = AbortSignal.any([context.signal, AbortSignal.timeout(config.flows.requestTimeoutMs)]);
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body: text === '' ? undefined : text, signal, redirect: 'manual' });
  } catch (error) {
    throw new OperationError(`The request failed: ${(error as Error).message}`, { message: (error as Error).message });
  }
  const content = await readCapped(response, config.flows.responseMaxBytes);
  let data: unknown = content;
  if ((response.headers.get('content-type') ?? '').includes('json')) {
    try {
      data = JSON.parse(content);
    } catch {
      // Not JSON after all: kept as text.
    }
  }
  const answer = {
    status: response.status,
    statusText: response.statusText,
    headers: Object.fromEntries(response.headers),
    data,
  };
  if (response.status < 200 || response.status >= 300)
    throw new OperationError(`The request answered ${response.status}`, answer);
  return answer;
};
