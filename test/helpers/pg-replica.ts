/**
 * A PostgreSQL primary and its streaming replica, made for one test: `initdb` a small primary cluster on a free
 * loopback port, copy it with `pg_basebackup -R -X stream`, and start the copy as a hot standby. (The machine's own
 * server is not copied: it holds every session's test databases, gigabytes that took minutes to copy.) Both run as
 * the postgres user when the test runs as root (PostgreSQL refuses root); the replica is stopped (SIGSTOP), resumed
 * and killed by its processes' ids. Null (the caller skips) when PostgreSQL 15's programs are not installed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './child-server.js';

const BIN = '/usr/lib/postgresql/15/bin';

export interface PgPair {
  /** A database URL on the primary, and the same database on the replica. */
  primaryUrl(database: string): string;
  replicaUrl(database: string): string;
  /** SIGSTOP or SIGCONT to the replica's postmaster and every backend: a replica that hangs, then comes back. */
  signalReplica(signal: 'SIGSTOP' | 'SIGCONT'): void;
  stop(): Promise<void>;
}

const asRoot = () => process.getuid?.() === 0;

/** As the postgres user when running as root; as oneself otherwise. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return asRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function run(command: string, args: string[]): void {
  const [cmd, argv] = asPostgres(command, args);
  execFileSync(cmd, argv, { stdio: 'pipe', timeout: 120_000 });
}

interface Server {
  child: ChildProcess;
  data: string;
  postmaster: number;
}

async function startServer(data: string, port: number): Promise<Server> {
  const [cmd, args] = asPostgres(`${BIN}/postgres`, ['-D', data]);
  const child = spawn(cmd, args, { stdio: 'ignore' });
  try {
    await waitForPort(port, 60_000, `PostgreSQL on ${port}`);
    // Listening is not accepting: the server refuses connections until its start-up (or a standby's recovery) is done.
    for (let tries = 0; ; tries++) {
      try {
        execFileSync(`${BIN}/pg_isready`, ['-h', '127.0.0.1', '-p', String(port), '-q']);
        break;
      } catch (error) {
        if (tries > 600) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const postmaster = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return { child, data, postmaster };
}

async function stopServer(server: Server | null): Promise<void> {
  if (!server) return;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(server.postmaster, name);
    } catch {
      // Gone already.
    }
  };
  signal('SIGCONT');
  signal('SIGQUIT');
  // The postmaster ends its backends on SIGQUIT; one that does not end in time is killed (its backends follow).
  for (let waited = 0; waited < 5000 && isRunning(server.postmaster); waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  if (isRunning(server.postmaster)) signal('SIGKILL');
  if (server.child.exitCode === null) server.child.kill('SIGKILL');
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The settings of each cluster: loopback only, its socket in the test's folder, small and without fsync. */
function settings(port: number, dir: string): string {
  return [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dir}'`,
    'max_connections = 60',
    'shared_buffers = 16MB',
    'fsync = off',
    'hot_standby = on',
  ].join('\n');
}

export async function startPgPair(): Promise<PgPair | null> {
  if (!existsSync(`${BIN}/initdb`)) return null;
  const dir = mkdtempSync(path.join(tmpdir(), 'strata-replica-'));
  if (asRoot()) execFileSync('chown', ['postgres:postgres', dir]);
  const primaryData = path.join(dir, 'primary');
  const replicaData = path.join(dir, 'replica');
  let primary: Server | null = null;
  let replica: Server | null = null;
  try {
    const primaryPort = await freePort();
    // initdb's pg_hba.conf with -A trust allows replication connections from loopback.
    run(`${BIN}/initdb`, ['-D', primaryData, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    appendFileSync(path.join(primaryData, 'postgresql.conf'), `\n${settings(primaryPort, dir)}\nwal_level = replica\n`);
    primary = await startServer(primaryData, primaryPort);
    run(`${BIN}/pg_basebackup`, [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
      ...['-D', replicaData, '-R', '-X', 'stream', '-c', 'fast'],
    ]);
    const replicaPort = await freePort();
    writeFileSync(path.join(replicaData, 'postgresql.conf'), `${settings(replicaPort, dir)}\n`);
    replica = await startServer(replicaData, replicaPort);
    const started = replica;
    const url = (port: number, database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
    const processes = () => {
      let children = '';
      try {
        children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(started.postmaster)]).toString();
      } catch {
        // No backend (ps exits 1 when it lists nothing).
      }
      return [started.postmaster, ...children.split(/\s+/).filter(Boolean).map(Number)];
    };
    const both = { primary, replica };
    return {
      primaryUrl: (database) => url(primaryPort, database),
      replicaUrl: (database) => url(replicaPort, database),
      signalReplica(signal) {
        for (const pid of processes()) {
          try {
            process.kill(pid, signal);
          } catch {
            // A backend that ended meanwhile.
          }
        }
      },
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
