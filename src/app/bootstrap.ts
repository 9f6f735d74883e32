/**
 * `strata bootstrap`: migrate; on a fresh install also create the Administrator role and policy, the Public policy,
 * the settings row and the first admin. Idempotent: an installed database is only migrated.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { hashPassword } from '../auth/passwords.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import { runMigrations } from '../db/migrations/run-migrations.js';
import { AccessRepository } from '../db/repositories/access.js';
import { writeInstallation } from '../db/repositories/installation.js';

/** Directus's well-known id for the Public policy, so exported permissions keep working. */
export const PUBLIC_POLICY_ID = 'abf8a154-5b1c-4a46-ac9c-7300570f4f17';

export interface BootstrapResult {
  installed: boolean;
  migrations: string[];
  adminEmail?: string;
  generatedPassword?: string;
}

export async function bootstrap(
  db: Database,
  config: Config,
  log: { info(msg: string): void },
): Promise<BootstrapResult> {
  // Instances started together must not migrate or install twice: one runs, the others then find it done.
  return db.withLock('strata:bootstrap', () => install(db, config, log));
}

async function install(db: Database, config: Config, log: { info(msg: string): void }): Promise<BootstrapResult> {
  const migrations = await runMigrations(db);
  if (migrations.length) log.info(`Applied migrations: ${migrations.join(', ')}`);

  if (await new AccessRepository(db).adminPolicyExists()) return { installed: false, migrations };

  const generatedPassword = config.adminPassword ? undefined : randomBytes(12).toString('base64url');
  const passwordHash = await hashPassword(config.adminPassword ?? generatedPassword!, config.hash);
  const roleId = randomUUID();
  const policyId = randomUUID();

  await writeInstallation(db, {
    roles: [{ id: roleId, name: 'Administrator', icon: 'verified', description: '$t:admin_description' }],
    policies: [
      {
        id: policyId,
        name: 'Administrator',
        icon: 'verified',
        description: '$t:admin_description',
        admin_access: true,
        app_access: true,
      },
      {
        id: PUBLIC_POLICY_ID,
        name: '$t:public_label',
        icon: 'public',
        description: '$t:public_description',
        admin_access: false,
        app_access: false,
      },
    ],
    access: [
      { id: randomUUID(), role: roleId, user: null, policy: policyId },
      { id: randomUUID(), role: null, user: null, policy: PUBLIC_POLICY_ID },
    ],
    settings: { project_name: 'Strata' },
    users: [
      {
        id: randomUUID(),
        email: config.adminEmail,
        password: passwordHash,
        first_name: 'Admin',
        last_name: 'User',
        status: 'active',
        role: roleId,
        token: config.adminToken,
        provider: 'default',
      },
    ],
  });
  log.info(`Installed Strata: Administrator role and policy, Public policy, admin ${config.adminEmail}`);
  return { installed: true, migrations, adminEmail: config.adminEmail, generatedPassword };
}
