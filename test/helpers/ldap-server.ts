/**
 * A throwaway OpenLDAP server (Debian's slapd) of the test's own: a slapd.conf and an mdb database in a temporary
 * folder, loaded offline with slapadd, then slapd in the foreground on a free loopback port, stopped by its PID.
 * Skipped where the binaries are missing (`.ci/run` installs slapd and ldap-utils).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, killChild, waitForPort } from './child-server.js';

const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';
const SCHEMAS = ['core', 'cosine', 'inetorgperson', 'nis'];
/** The directory manager's password (rootdn `cn=admin,<suffix>`): for tests that change the directory meanwhile. */
export const LDAP_ROOT_PASSWORD = 'admin-secret-of-the-test-directory';

export function slapdAvailable(): boolean {
  return existsSync(SLAPD) && existsSync(SLAPADD) && existsSync('/etc/ldap/schema/core.schema');
}

/**
 * The directory's rules as a real deployment writes them: passwords are only ever compared by a bind, the service
 * account reads everything else, users read their own entry, anonymous clients read nothing.
 */
function slapdConf(dir: string, suffix: string, serviceDn: string): string {
  return [
    ...SCHEMAS.map((name) => `include /etc/ldap/schema/${name}.schema`),
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    `pidfile ${path.join(dir, 'slapd.pid')}`,
    'database mdb',
    'maxsize 10485760',
    `suffix "${suffix}"`,
    `rootdn "cn=admin,${suffix}"`,
    `rootpw ${LDAP_ROOT_PASSWORD}`,
    `directory ${path.join(dir, 'db')}`,
    'access to attrs=userPassword by self write by anonymous auth by * none',
    `access to * by dn.exact="${serviceDn}" read by self read by * none`,
    '',
  ].join('\n');
}

export class TestLdap {
  private process: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  /** A server under `suffix` holding `ldif` (the suffix's own entry included), readable by `serviceDn`. */
  static async start(suffix: string, serviceDn: string, ldif: string): Promise<TestLdap> {
    const dir = mkdtempSync(path.join(tmpdir(), 'strata-slapd-'));
    mkdirSync(path.join(dir, 'db'));
    const conf = path.join(dir, 'slapd.conf');
    writeFileSync(conf, slapdConf(dir, suffix, serviceDn));
    writeFileSync(path.join(dir, 'data.ldif'), ldif);
    const loaded = spawnSync(SLAPADD, ['-f', conf, '-l', path.join(dir, 'data.ldif')], { encoding: 'utf8' });
    if (loaded.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`slapadd failed: ${loaded.stderr}`);
    }
    const ldap = new TestLdap(await freePort(), dir);
    await ldap.resume();
    return ldap;
  }

  get url(): string {
    return `ldap://127.0.0.1:${this.port}`;
  }

  /** Starts slapd (again, on the same port and data after a stop). */
  async resume(): Promise<void> {
    // -d 0 keeps slapd in the foreground: the child's PID is slapd's, and killing it stops the server.
    const child = spawn(SLAPD, ['-h', `${this.url}/`, '-f', path.join(this.dir, 'slapd.conf'), '-d', '0'], {
      stdio: 'ignore',
    });
    this.process = child;
    await waitForPort(this.port, 10_000, 'slapd');
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = null;
    await killChild(child);
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
