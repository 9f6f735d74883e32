/** The project settings row (service_settings), read for /server/info and kept for a few seconds. */
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
}

export class SettingsService {
  private cached: { at: number; value: ProjectInfo } | null = null;
  private policy: { at: number; value: string | null } | null = null;
  /** Moves on at every `clear()`: a read already on its way when the row changed is not kept. */
  private generation = 0;

  private readonly settings: SettingsRepository;

  constructor(db: Database) {
    this.settings = new SettingsRepository(db);
  }

  /** The settings row changed (PATCH /settings). */
  clear(): void {
    this.generation += 1;
    this.cached = null;
    this.policy = null;
  }

  /** `auth_password_policy`: a regular expression new passwords must match (`/.../flags` or bare), or null. */
  async passwordPolicy(): Promise<string | null> {
    if (this.policy && Date.now() - this.policy.at < CACHE_MS) return this.policy.value;
    const generation = this.generation;
    const row = await this.settings.passwordPolicy();
    const value =
      typeof row?.auth_password_policy === 'string' && row.auth_password_policy !== ''
        ? row.auth_password_policy
        : null;
    if (generation === this.generation) this.policy = { at: Date.now(), value };
    return value;
  }

  async projectInfo(): Promise<ProjectInfo> {
    if (this.cached && Date.now() - this.cached.at < CACHE_MS) return this.cached.value;
    const generation = this.generation;
    const row: SettingsRow = (await this.settings.row()) ?? {};
    const value: ProjectInfo = {
      project_name: row.project_name ?? 'Strata',
      project_descriptor: row.project_descriptor ?? null,
      project_logo: row.project_logo ?? null,
      project_color: row.project_color ?? '#6644FF',
      default_language: row.default_language ?? 'en-US',
      public_foreground: row.public_foreground ?? null,
      public_background: row.public_background ?? null,
      public_note: row.public_note ?? null,
      custom_css: row.custom_css ?? null,
    };
    if (generation === this.generation) this.cached = { at: Date.now(), value };
    return value;
  }
}
