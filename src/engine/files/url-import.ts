/**
 * `POST /files/import`: a file fetched from a URL, as an upload. Only http and https; the address each connection
 * goes to is checked when it is made (a `lookup` of our own), so neither a name that resolves to a private address
 * nor one that changes its answer between check and connection (DNS rebinding), nor a redirect, reaches a denied
 * address: loopback (unless FILES_IMPORT_ALLOW_LOOPBACK), private, link-local, unique-local, this machine's own
 * addresses and IMPORT_IP_DENY_LIST. The whole fetch has FILES_IMPORT_TIMEOUT; its size FILES_MAX_UPLOAD_SIZE.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { UrlImportConfig } from '../../config/storage-config.js';
import {
  ContentTooLargeError,
  InvalidPayloadError,
  ServiceError,
  ServiceUnavailableError,
} from '../../errors/catalogue.js';
import type { IncomingFile } from './incoming-file.js';

const MAX_REDIRECTS = 5;

const PRIVATE_V4 = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16'];
const RESERVED_V4 = ['192.0.0.0/24', '198.18.0.0/15', '224.0.0.0/4', '240.0.0.0/4'];
const PRIVATE_V6 = ['fc00::/7', 'fe80::/10', 'ff00::/8', '::/128'];

/** The addresses an import may not reach, from the settings. */
export function deniedAddresses(config: UrlImportConfig): BlockList {
  const list = new BlockList();
  const add = (entry: string) => {
    const [address, prefix] = entry.split('/');
    const type = isIP(address!) === 6 ? 'ipv6' : 'ipv4';
    if (!isIP(address!)) return;
    if (prefix === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, Number(prefix), type);
  };
  for (const range of [...PRIVATE_V4, ...RESERVED_V4, ...PRIVATE_V6]) add(range);
  if (!config.allowLoopback) for (const range of ['127.0.0.0/8', '::1/128']) add(range);
  for (const entry of config.denyList) {
    if (entry !== '0.0.0.0') add(entry);
    // As in Directus: 0.0.0.0 stands for every address of this machine's interfaces.
    else
      for (const addresses of Object.values(networkInterfaces()))
        for (const info of addresses ?? []) if (!(config.allowLoopback && info.internal)) add(info.address);
  }
  return list;
}

function denied(list: BlockList, address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return list.check(mapped[1]!, 'ipv4');
  return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** A `lookup` that resolves as usual and fails for a denied address, at the moment of connecting. */
function checkedLookup(list: BlockList): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const found = addresses as LookupAddress[];
      const bad = found.find((entry) => denied(list, entry.address));
      if (bad || found.length === 0)
        return callback(Object.assign(new Error('denied address'), { code: 'EDENIED' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as (e: null, a: LookupAddress[]) => void)(null, found);
      callback(null, found[0]!.address, found[0]!.family);
    });
  };
}

function get(url: URL, lookup: LookupFunction, signal: AbortSignal): Promise<IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, { lookup, signal, headers: { 'user-agent': 'Strata file import' } }, resolve);
    request.once('error', reject);
  });
}

export class UrlImport {
  private readonly denied: BlockList;

  constructor(
    private readonly config: UrlImportConfig,
    private readonly maxSize: number,
  ) {
    this.denied = deniedAddresses(config);
  }

  /** The fetched file's stream, name and type; the caller stores it (and ends the fetch by reading or failing). */
  async fetch(url: URL): Promise<IncomingFile & { done: () => void }> {
    const signal = AbortSignal.timeout(this.config.timeoutMs);
    const lookup = checkedLookup(this.denied);
    let current = url;
    for (let hop = 0; ; hop++) {
      if (
        isIP(current.hostname.replace(/^\[|\]$/g, '')) &&
        denied(this.denied, current.hostname.replace(/^\[|\]$/g, ''))
      )
        throw new InvalidPayloadError(`"${url.href}" resolves to a denied address`);
      let response: IncomingMessage;
      try {
        response = await get(current, lookup, signal);
      } catch (error) {
        throw fetchError(url, error);
      }
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.resume();
        if (hop >= MAX_REDIRECTS) throw new ServiceUnavailableError('external-file', 'Too many redirects');
        current = new URL(location, current);
        if (current.protocol !== 'http:' && current.protocol !== 'https:')
          throw new InvalidPayloadError('a redirect left http and https');
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        throw new ServiceUnavailableError('external-file', `Couldn't fetch file from URL (status ${status})`);
      }
      const length = Number(response.headers['content-length']);
      if (Number.isFinite(length) && length > this.maxSize) {
        response.destroy();
        throw new ContentTooLargeError(this.maxSize, 'FILES_MAX_UPLOAD_SIZE');
      }
      response.once('error', () => {});
      signal.addEventListener('abort', () =>
        response.destroy(new ServiceUnavailableError('external-file', 'The fetch took too long')),
      );
      return {
        stream: response,
        filename: fileName(current, response),
        mimetype: String(response.headers['content-type'] ?? 'application/octet-stream'),
        done: () => response.destroy(),
      };
    }
  }
}

function fetchError(url: URL, error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  if ((error as { code?: string })?.code === 'EDENIED')
    return new InvalidPayloadError(`"${url.href}" resolves to a denied address`);
  return new ServiceUnavailableError('external-file', "Couldn't fetch file from URL");
}

/** The name the server gives (Content-Disposition), else the last part of the path, else `file`. */
function fileName(url: URL, response: IncomingMessage): string {
  const disposition = String(response.headers['content-disposition'] ?? '');
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1]!);
    } catch {
      // fall through to the plain name
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(disposition);
  if (plain) return plain[1]!;
  const last = url.pathname.split('/').filter(Boolean).pop();
  try {
    return last ? decodeURIComponent(last) : 'file';
  } catch {
    return last ?? 'file';
  }
}
