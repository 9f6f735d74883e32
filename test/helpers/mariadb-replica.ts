/**
 * A MariaDB primary and its replica, made for one test: `mariadb-install-db` once into a temp folder, the files
 * copied for the replica (both start from the same empty install), then two `mariadbd` processes on free loopback
 * ports with their sockets in that folder — the primary with a binary log (server id 1), the replica (server id 2)
 * following it by GTID (`CHANGE MASTER TO … MASTER_USE_GTID=slave_pos; START SLAVE`). The machine's own MariaDB (port
 * 3306) is never touched. Both are stopped (SIGTERM, then SIGKILL) by their processes' ids; the replica can be
 * stopped and resumed (SIGSTOP/SIGCONT) and its SQL thread paused. Null (the caller skips) when MariaDB's server
 * programs are not installed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { freePort, waitForPort } from './child-server.js';

const SERVER = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].find((file) => existsSync(file));
const INSTALL = ['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'].find((file) => existsSync(file));

export interface MariadbPair {
  /** A database URL on the primary, and the same database on the replica. */
  primaryUrl(database: string): string;
  replicaUrl(database: string): string;
  /** SIGSTOP or SIGCONT to the replica's server: a replica that hangs, then comes back. */
  signalReplica(signal: 'SIGSTOP' | 'SIGCONT'): void;
  /** A statement on the replica's server as root (STOP SLAVE SQL_THREAD, START SLAVE SQL_THREAD). */
  onReplica(sql: string): Promise<void>;
  stop(): Promise<void>;
}

interface Server {
  child: ChildProcess;
  port: number;
}

/** Small and quick: a test's data, no durability needed. */
function serverArgs(dir: string, name: string, port: number): string[] {
  return [
    '--no-defaults',
    `--datadir=${path.join(dir, name)}`,
    `--socket=${path.join(dir, `${name}.sock`)}`,
    `--pid-file=${path.join(dir, `${name}.pid`)}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    '--skip-name-resolve',
    '--innodb-buffer-pool-size=16M',
    '--innodb-flush-log-at-trx-commit=0',
    '--max-connections=80',
    '--character-set-server=utf8mb4',
    '--collation-server=utf8mb4_unicode_ci',
    ...(process.getuid?.() === 0 ? ['--user=root'] : []),
  ];
}

async function startServer(dir: string, name: string, extra: string[]): Promise<Server> {
  const port = await freePort();
  const child = spawn(SERVER!, [...serverArgs(dir, name, port), ...extra], { stdio: 'ignore' });
  try {
    await waitForPort(port, 60_000, `MariaDB (${name}) on ${port}`);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { child, port };
}

async function stopServer(server: Server | null): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGCONT');
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

const url = (port: number, database: string) => `mysql://root@127.0.0.1:${port}/${database}`;

async function statement(port: number, sql: string): Promise<void> {
  const k = knexFactory({ client: 'mysql2', connection: { host: '127.0.0.1', port, user: 'root' } });
  try {
    await k.raw(sql);
  } finally {
    await k.destroy();
  }
}

export async function startMariadbPair(): Promise<MariadbPair | null> {
  if (!SERVER || !INSTALL) return null;
  const dir = mkdtempSync(path.join(tmpdir(), 'strata-mariadb-replica-'));
  let primary: Server | null = null;
  let replica: Server | null = null;
  try {
    execFileSync(
      INSTALL,
      [
        '--no-defaults',
        `--datadir=${path.join(dir, 'primary')}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        ...(process.getuid?.() === 0 ? ['--user=root'] : []),
      ],
      { stdio: 'pipe', timeout: 120_000 },
    );
    cpSync(path.join(dir, 'primary'), path.join(dir, 'replica'), { recursive: true });
    // Row events: a statement that depends on session settings (a deep recursive CTE) replays as its rows.
    primary = await startServer(dir, 'primary', [
      `--log-bin=${path.join(dir, 'primary', 'bin')}`,
      '--server-id=1',
      '--binlog-format=ROW',
    ]);
    replica = await startServer(dir, 'replica', ['--server-id=2', '--read-only=1']);
    await statement(
      replica.port,
      `change master to master_host='127.0.0.1', master_port=${primary.port}, master_user='root', ` +
        "master_password='', master_use_gtid=slave_pos, master_connect_retry=1",
    );
    await statement(replica.port, 'start slave');
    const both = { primary, replica };
    return {
      primaryUrl: (database) => url(both.primary.port, database),
      replicaUrl: (database) => url(both.replica.port, database),
      signalReplica(signal) {
        both.replica.child.kill(signal);
      },
      onReplica: (sql) => statement(both.replica.port, sql),
      async stop() {
        await stopServer(both.replica);
        await stopServer(both.primary);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopServer(replica);
    await stopServer(primary);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
