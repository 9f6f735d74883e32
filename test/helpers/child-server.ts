/**
 * What the throwaway servers of the tests (redis-server, s3rver) share: a free loopback port, waiting until the
 * child listens on it, and stopping the child at once (an outage, not a clean shutdown).
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';

export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  server.close();
  await once(server, 'close');
  return port;
}

/** Resolves once something accepts connections on the loopback port; throws `${name} did not start` after `ms`. */
export async function waitForPort(port: number, ms: number, name: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} did not start`);
}

export async function killChild(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null) return;
  child.kill('SIGKILL');
  await once(child, 'exit');
}
