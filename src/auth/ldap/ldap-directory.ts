/**
 * The conversation with the directory for one login (Directus docs: Authentication, LDAP): bind as the service
 * account, find the one entry whose user attribute equals the identifier, read its groups' `cn`, then bind as that
 * entry with the password. Filters are built as objects (ldapts BER-encodes the value as bytes), so an identifier
 * such as `*)(uid=*` is compared literally and never parsed as filter syntax. Every failure leaves as a coded error;
 * the directory's own messages (which may echo a DN) and the bind password only ever reach the log, the password never.
 */
import {
  Client,
  EqualityFilter,
  InappropriateAuthError,
  InsufficientAccessError,
  InvalidCredentialsError as LdapInvalidCredentials,
  NoSuchObjectError,
  SizeLimitExceededError,
  type Entry,
} from 'ldapts';
import type { LdapProviderConfig } from '../../config/ldap-config.js';
import {
  InvalidCredentialsError,
  InvalidProviderConfigError,
  ServiceUnavailableError,
} from '../../errors/catalogue.js';

export interface DirectoryUser {
  dn: string;
  uid: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  /** The `cn` of every group whose group attribute names the user. */
  groups: string[];
}

/** The entry was found and its password refused (an INVALID_CREDENTIALS that names the entry). */
export class WrongPasswordError extends InvalidCredentialsError {
  constructor(readonly dn: string) {
    super();
  }
}

export interface DirectoryLog {
  warn(message: string): void;
}

// Active Directory's userAccountControl bits that forbid a sign-in: ACCOUNTDISABLE, LOCKOUT, PASSWORD_EXPIRED.
const INVALID_ACCOUNT_FLAGS = 0x2 | 0x10 | 0x800000;
/** Groups read per user: a bound on what one login makes the server hold. */
const MAX_GROUPS = 1000;
/** Connections to one directory at once (logins and refreshes together); more answer 503 at once. */
const MAX_CONVERSATIONS = 32;
const inFlight = new WeakMap<LdapProviderConfig, number>();

const refused = (error: unknown) =>
  error instanceof LdapInvalidCredentials ||
  error instanceof InappropriateAuthError ||
  error instanceof InsufficientAccessError;

function first(value: Entry[string] | undefined): string | null {
  const one = Array.isArray(value) ? value[0] : value;
  if (one === undefined) return null;
  const text = Buffer.isBuffer(one) ? one.toString('utf8') : String(one);
  return text === '' ? null : text;
}

function all(value: Entry[string] | undefined): string[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.map((one) => (Buffer.isBuffer(one) ? one.toString('utf8') : String(one)));
}

/** The directory was unreachable, timed out or answered something unexpected: 503, the detail in the log only. */
function unavailable(config: LdapProviderConfig, log: DirectoryLog, error: unknown): ServiceUnavailableError {
  let detail = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
  if (config.bindPassword !== '') detail = detail.split(config.bindPassword).join('***');
  log.warn(`LDAP provider "${config.name}" (${config.url}) failed: ${detail}`);
  return new ServiceUnavailableError('ldap', 'Service returned unexpected error');
}

function client(config: LdapProviderConfig): Client {
  // ldapts speaks TLS whenever it is given TLS options: only an ldaps:// URL gets them.
  const secure = /^ldaps:/i.test(config.url);
  const tls = { rejectUnauthorized: config.tls.rejectUnauthorized, ...(config.tls.ca ? { ca: config.tls.ca } : {}) };
  return new Client({
    url: config.url,
    connectTimeout: config.connectTimeoutMs,
    timeout: config.timeoutMs,
    ...(secure ? { tlsOptions: tls } : {}),
  });
}

async function findUser(ldap: Client, config: LdapProviderConfig, identifier: string): Promise<Entry | null> {
  const found = await ldap
    .search(config.userDn, {
      scope: config.userScope,
      filter: new EqualityFilter({ attribute: config.userAttribute, value: identifier }),
      attributes: [
        'uid',
        config.firstNameAttribute,
        config.lastNameAttribute,
        config.mailAttribute,
        'userAccountControl',
      ],
      // Two are enough to know the identifier is ambiguous, which is refused rather than guessed.
      sizeLimit: 2,
    })
    .catch((error: unknown) => {
      // More than two is ambiguous too (the server stops at the limit with an error).
      if (error instanceof SizeLimitExceededError) return null;
      throw error;
    });
  const searchEntries = found?.searchEntries ?? [];
  if (searchEntries.length !== 1) return null;
  const entry = searchEntries[0]!;
  if (Number(first(entry.userAccountControl) ?? 0) & INVALID_ACCOUNT_FLAGS) return null;
  return entry;
}

async function groupsOf(ldap: Client, config: LdapProviderConfig, dn: string, uid: string | null): Promise<string[]> {
  if (!config.groupDn) return [];
  // posixGroup lists members by uid; groupOfNames (and Active Directory) by DN.
  const byUid = config.groupAttribute.toLowerCase() === 'memberuid' && uid !== null;
  const { searchEntries } = await ldap.search(config.groupDn, {
    scope: config.groupScope,
    filter: new EqualityFilter({ attribute: config.groupAttribute, value: byUid ? uid : dn }),
    attributes: ['cn'],
    sizeLimit: MAX_GROUPS,
  });
  return searchEntries.flatMap((entry) => all(entry.cn));
}

async function serviceBind(ldap: Client, config: LdapProviderConfig, log: DirectoryLog): Promise<void> {
  try {
    await ldap.bind(config.bindDn, config.bindPassword);
  } catch (error) {
    if (!refused(error)) throw error;
    log.warn(`LDAP provider "${config.name}": the directory refused the bind DN or its password`);
    throw new InvalidProviderConfigError(config.name);
  }
}

/**
 * One conversation with the directory on a connection of its own, bound as the service account, closed at the end
 * whatever happened; at most MAX_CONVERSATIONS at once per provider (a flood of logins cannot open connections
 * without end). Coded errors pass; anything else is the directory failing.
 */
async function converse<T>(
  config: LdapProviderConfig,
  log: DirectoryLog,
  work: (ldap: Client) => Promise<T>,
): Promise<T> {
  const busy = inFlight.get(config) ?? 0;
  if (busy >= MAX_CONVERSATIONS) throw new ServiceUnavailableError('ldap', 'Too many sign-ins at once');
  inFlight.set(config, busy + 1);
  const ldap = client(config);
  try {
    await serviceBind(ldap, config, log);
    return await work(ldap);
  } catch (error) {
    if (error instanceof InvalidCredentialsError || error instanceof InvalidProviderConfigError) throw error;
    throw unavailable(config, log, error);
  } finally {
    inFlight.set(config, (inFlight.get(config) ?? 1) - 1);
    // Closing may fail on a connection that never opened; the answer is already decided.
    await ldap.unbind().catch(() => {});
  }
}

/**
 * The directory's entry for `identifier` once `password` binds as it; 401 INVALID_CREDENTIALS for an unknown,
 * ambiguous or disabled entry and for a wrong password alike. An empty password is refused before any bind: a simple
 * bind with a DN and no password is an unauthenticated bind (RFC 4513 §5.1.2) that many servers accept.
 */
export async function authenticateInDirectory(
  config: LdapProviderConfig,
  credentials: { identifier: string; password: string },
  log: DirectoryLog,
): Promise<DirectoryUser> {
  if (credentials.password === '' || credentials.identifier === '') throw new InvalidCredentialsError();
  return converse(config, log, async (ldap) => {
    const entry = await findUser(ldap, config, credentials.identifier);
    if (!entry) throw new InvalidCredentialsError();
    const uid = first(entry.uid);
    const groups = await groupsOf(ldap, config, entry.dn, uid);
    try {
      await ldap.bind(entry.dn, credentials.password);
    } catch (error) {
      if (refused(error)) throw new WrongPasswordError(entry.dn);
      throw error;
    }
    return {
      dn: entry.dn,
      uid,
      firstName: first(entry[config.firstNameAttribute]),
      lastName: first(entry[config.lastNameAttribute]),
      email: first(entry[config.mailAttribute]),
      groups,
    };
  });
}

/**
 * Whether a signed-in user's entry is still there and not disabled, asked when its session is refreshed: removing
 * someone from the directory ends their sessions at the next refresh, not when the refresh token expires.
 */
export async function entryStillValid(config: LdapProviderConfig, dn: string, log: DirectoryLog): Promise<boolean> {
  return converse(config, log, async (ldap) => {
    try {
      const { searchEntries } = await ldap.search(dn, {
        scope: 'base',
        attributes: ['userAccountControl'],
        sizeLimit: 1,
      });
      const entry = searchEntries[0];
      return entry !== undefined && !(Number(first(entry.userAccountControl) ?? 0) & INVALID_ACCOUNT_FLAGS);
    } catch (error) {
      if (error instanceof NoSuchObjectError) return false;
      throw error;
    }
  });
}
