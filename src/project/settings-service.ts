/** The project settings row (service_settings), read for /server/info and kept for a few seconds. */
import type { Cache } from '../cache/cache.js';
import { CacheRegistry } from '../cache/cache-registry.js';
import type { Database } from '../db/connection.js';
import { SettingsRepository, type SettingsRow } from '../db/repositories/settings.js';

const CACHE_MS = 5_000;

export interface ProjectInfo {
  project_name: string;
  project_descriptor: string | null;
  project_logo: string | null;
  project_color: string;
  default_language: string;
  public_foreground: string | null;
  public_background: string | null;
  public_note: string | null;
  custom_css: string | null;
  /** Whether sign-up is open (Studio shows its screen then). */
  public_registration: boolean;
  public_registration_verify_email: boolean;
}

/** Who may sign up (`public_registration*`): the role, whether the address is checked first, which addresses. */
export interface RegistrationSettings {
  enabled: boolean;
  role: string | null;
  verifyEmail: boolean;
  /** A filter on `{email}` (Directus's filter syntax), or null. */
  emailFilter: Record<string, unknown> | null;
}

/** What /assets may do (`storage_asset_transform`: all, none or presets) and the presets by key. */
export interface AssetSettings {
  transform: 'all' | 'none' | 'presets';
  presets: Map<string, Record<string, unknown>>;
}

export class SettingsService {
  /** What is read from the row, by what; cleared by the `settings` change (cache/invalidation.ts). */
  private readonly cache: Cache<
    'info' | 'policy' | 'assets' | 'registration',
    ProjectInfo | AssetSettings | RegistrationSettings | string | null
  >;
  private readonly settings: SettingsRepository;

  constructor(db: Database, caches = new CacheRegistry()) {
    this.settings = new SettingsRepository(db);
    this.cache = caches.create('settings', { max: 4, ttlMs: CACHE_MS });
  }

  /** Drops what was read (tests; a running Strata clears through cache/invalidation.ts). */
  clear(): void {
    this.cache.clear();
  }

  /** `auth_password_policy`: a regular expression new passwords must match (`/.../flags` or bare), or null. */
  passwordPolicy(): Promise<string | null> {
    return this.cache.load('policy', async () => {
      const row = await this.settings.passwordPolicy();
      return typeof row?.auth_password_policy === 'string' && row.auth_password_policy !== ''
        ? row.auth_password_policy
        : null;
    }) as Promise<string | null>;
  }

  assetSettings(): Promise<AssetSettings> {
    return this.cache.load('assets', async () => {
      const row: SettingsRow = (await this.settings.row()) ?? {};
      const transform = row.storage_asset_transform;
      return {
        transform: transform === 'none' || transform === 'presets' ? transform : 'all',
        presets: assetPresets(row.storage_asset_presets),
      };
    }) as Promise<AssetSettings>;
  }

  registration(): Promise<RegistrationSettings> {
    return this.cache.load('registration', async () => {
      const row: SettingsRow = (await this.settings.row()) ?? {};
      const filter = jsonObject(row.public_registration_email_filter);
      return {
        enabled: truthy(row.public_registration),
        role: typeof row.public_registration_role === 'string' ? row.public_registration_role : null,
        // Directus's default: addresses are checked unless the setting says otherwise.
        verifyEmail:
          row.public_registration_verify_email === undefined || row.public_registration_verify_email === null
            ? true
            : truthy(row.public_registration_verify_email),
        emailFilter: filter,
      };
    }) as Promise<RegistrationSettings>;
  }

  /** What a mail's layout shows: read when a mail is rendered (off the request path), not cached. */
  async mailProject(): Promise<{ name: string; color: string; logo: string | null; url: string | null }> {
    const row: SettingsRow = (await this.settings.row()) ?? {};
    return {
      name: row.project_name ?? 'Strata',
      color: row.project_color ?? '#6644FF',
      logo: row.project_logo ?? null,
      url: typeof row.project_url === 'string' ? row.project_url : null,
    };
  }

  projectInfo(): Promise<ProjectInfo> {
    return this.cache.load('info', () => this.readInfo()) as Promise<ProjectInfo>;
  }

  private async readInfo(): Promise<ProjectInfo> {
    const row: SettingsRow = (await this.settings.row()) ?? {};
    return {
      project_name: row.project_name ?? 'Strata',
      project_descriptor: row.project_descriptor ?? null,
      project_logo: row.project_logo ?? null,
      project_color: row.project_color ?? '#6644FF',
      default_language: row.default_language ?? 'en-US',
      public_foreground: row.public_foreground ?? null,
      public_background: row.public_background ?? null,
      public_note: row.public_note ?? null,
      custom_css: row.custom_css ?? null,
      public_registration: truthy(row.public_registration),
      public_registration_verify_email:
        row.public_registration_verify_email === undefined || row.public_registration_verify_email === null
          ? true
          : truthy(row.public_registration_verify_email),
    };
  }
}

/** A boolean column as each database returns it (true, 1, '1'). */
function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 'true';
}

/** A JSON object column (text on some databases), or null when absent or not an object. */
function jsonObject(value: unknown): Record<string, unknown> | null {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

/** The presets of the settings row (a JSON list of `{key, width, height, fit, ...}`); malformed entries are skipped. */
function assetPresets(value: unknown): Map<string, Record<string, unknown>> {
  const presets = new Map<string, Record<string, unknown>>();
  let list: unknown = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      return presets;
    }
  }
  if (!Array.isArray(list)) return presets;
  for (const preset of list)
    if (preset && typeof preset === 'object' && typeof (preset as { key?: unknown }).key === 'string')
      presets.set((preset as { key: string }).key, preset as Record<string, unknown>);
  return presets;
}
