/**
 * A throwaway redis-server of the test's own, on a free loopback port, that the test can stop and start again
 * (on the same port) to play an outage. Skipped where the binary is missing.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort, killChild, waitForPort } from './child-server.js';

export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

export class TestRedis {
  private process: ChildProcess | null = null;

  private constructor(readonly port: number) {}

  static async start(): Promise<TestRedis> {
    const redis = new TestRedis(await freePort());
    await redis.resume();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async resume(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.process = child;
    await waitForPort(this.port, 5_000, 'redis-server');
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = null;
    await killChild(child);
  }
}
