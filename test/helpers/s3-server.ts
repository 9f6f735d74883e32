/**
 * A throwaway S3-compatible server (s3rver, from npm) in a process of its own on a free loopback port, with one
 * bucket, for the s3 storage driver's tests; stopped (and its folder removed) by the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, killChild, waitForPort } from './child-server.js';

const BIN = path.join(path.dirname(createRequire(import.meta.url).resolve('s3rver/package.json')), 'bin/s3rver.js');

export class TestS3 {
  private process: ChildProcess | null = null;
  readonly bucket = 'strata-files';
  readonly key = 'S3RVER';
  readonly secret = 'S3RVER';

  private constructor(
    readonly port: number,
    private readonly directory: string,
  ) {}

  static async start(): Promise<TestS3> {
    const server = new TestS3(await freePort(), mkdtempSync(path.join(tmpdir(), 'strata-s3-')));
    await server.resume();
    return server;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The settings of a storage location `name` on this server. */
  env(name: string): Record<string, string> {
    const prefix = `STORAGE_${name.toUpperCase()}`;
    return {
      [`${prefix}_DRIVER`]: 's3',
      [`${prefix}_KEY`]: this.key,
      [`${prefix}_SECRET`]: this.secret,
      [`${prefix}_BUCKET`]: this.bucket,
      [`${prefix}_REGION`]: 'us-east-1',
      [`${prefix}_ENDPOINT`]: this.endpoint,
      [`${prefix}_FORCE_PATH_STYLE`]: 'true',
    };
  }

  async resume(): Promise<void> {
    const args = [BIN, '-d', this.directory, '-a', '127.0.0.1', '-p', String(this.port), '-s'];
    this.process = spawn(process.execPath, [...args, '--configure-bucket', this.bucket], { stdio: 'ignore' });
    await waitForPort(this.port, 10_000, 's3rver');
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = null;
    await killChild(child);
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }
}
