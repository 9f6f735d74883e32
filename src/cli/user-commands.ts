/** `strata users create|passwd|list` and `strata roles create`: through the same writer as /users and /roles. */
import type { Config } from '../config/config.js';
import { AccessRepository } from '../db/repositories/access.js';
import { UsersRepository } from '../db/repositories/users.js';
import { CLI_ACCOUNTABILITY, CliError, EXIT, withContext, type CliApi, type Output } from './cli-support.js';

const SYSTEM = { system: true };
/** Writes read back as values (the CLI prints them). */
const ROWS = { system: true, reread: 'rows' as const };

/** The role `--role` or `--parent` (`flag`) names, by id or by name; a name two roles share is refused, not guessed. */
async function roleId(context: CliApi, role: string, flag: string): Promise<string> {
  // A uuid-shaped value is an id (PostgreSQL refuses to compare a uuid column with other text), anything else a name.
  const byId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(role);
  const ids = await new AccessRepository(context.db).roleIds(byId ? 'id' : 'name', role);
  if (ids.length === 0) throw new CliError(`No role "${role}" (${flag})`, EXIT.notFound);
  if (ids.length > 1)
    throw new CliError(
      `${ids.length} roles are named "${role}" (${ids.join(', ')}): pass ${flag} the id of the one you mean`,
      EXIT.conflict,
    );
  return ids[0]!;
}

async function userId(context: CliApi, email: string): Promise<string> {
  const row = await new UsersRepository(context.db).idByEmail(email.toLowerCase());
  if (!row) throw new CliError(`No user with email ${email}`, EXIT.notFound);
  return String(row.id);
}

export async function runUsersCreate(
  config: Config,
  out: Output,
  options: { email: string; password: string; role?: string; firstName?: string; lastName?: string },
): Promise<void> {
  const user = await withContext(config, out.io, async (context) => {
    const payload: Record<string, unknown> = { email: options.email, password: options.password, status: 'active' };
    if (options.role) payload.role = await roleId(context, options.role, '--role');
    if (options.firstName) payload.first_name = options.firstName;
    if (options.lastName) payload.last_name = options.lastName;
    const created = await context.writer.create(
      await context.writer.open('service_users', 'create', CLI_ACCOUNTABILITY, ROWS),
      [payload],
      false,
      { fields: ['id', 'email', 'role'] },
    );
    return created!.data as { id: string; email: string; role: string | null };
  });
  out.result(user, `Created user ${user.email} (${user.id})`);
}

export async function runUsersPasswd(
  config: Config,
  out: Output,
  options: { email: string; password: string },
): Promise<void> {
  await withContext(config, out.io, async (context) => {
    const id = await userId(context, options.email);
    await context.writer.updateOne(
      await context.writer.open('service_users', 'update', CLI_ACCOUNTABILITY, SYSTEM),
      id,
      { password: options.password },
      { fields: ['id'] },
    );
  });
  out.result({ email: options.email, changed: true }, `Password of ${options.email} changed`);
}

export async function runUsersList(config: Config, out: Output): Promise<void> {
  const users = await withContext(config, out.io, async (context) => {
    const { data } = await context.items.rowsMany(
      'service_users',
      {
        fields: ['id', 'email', 'first_name', 'last_name', 'status', 'role.name'],
        sort: [{ field: 'email', order: 'asc' }],
        limit: -1,
      },
      CLI_ACCOUNTABILITY,
      undefined,
      SYSTEM,
    );
    return data as {
      id: string;
      email: string | null;
      first_name: string | null;
      last_name: string | null;
      status: string;
      role: { name: string } | null;
    }[];
  });
  const lines = users.map(
    (u) =>
      `${u.email ?? '(no email)'}\t${u.status}\t${u.role?.name ?? '-'}\t${[u.first_name, u.last_name].filter(Boolean).join(' ')}\t${u.id}`,
  );
  out.result(users, lines.length ? `email\tstatus\trole\tname\tid\n${lines.join('\n')}` : 'No users');
}

export async function runRolesCreate(
  config: Config,
  out: Output,
  options: { name: string; admin?: boolean; app?: boolean; parent?: string },
): Promise<void> {
  const role = await withContext(config, out.io, async (context) => {
    const payload: Record<string, unknown> = { name: options.name };
    if (options.parent) payload.parent = await roleId(context, options.parent, '--parent');
    if (options.admin || options.app) {
      payload.policies = [
        {
          policy: {
            name: options.name,
            admin_access: options.admin === true,
            app_access: options.admin === true || options.app === true,
          },
        },
      ];
    }
    const created = await context.writer.create(
      await context.writer.open('service_roles', 'create', CLI_ACCOUNTABILITY, ROWS),
      [payload],
      false,
      { fields: ['id', 'name'] },
    );
    return created!.data as { id: string; name: string };
  });
  out.result(role, `Created role ${role.name} (${role.id})`);
}
