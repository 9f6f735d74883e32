import type { Config } from '../config/config.js';
import { createApp } from '../http/app.js';
import { createAppContext } from '../services/app-context.js';

export async function runStartCommand(config: Config): Promise<void> {
  const logger = { level: config.logLevel };
  // A context first (database, bootstrap, schema); the server only listens once the schema is known.
  const startupLog = {
    info: (msg: string) => config.logLevel !== 'silent' && process.stdout.write(`${msg}\n`),
    warn: (msg: string) => process.stdout.write(`${msg}\n`),
  };
  const context = await createAppContext(config, { bootstrap: true, log: startupLog });
  const app = createApp(context, { logger });

  // Stop accepting, let in-flight requests finish (new ones get 503), then close the pools. A request that outlives
  // SHUTDOWN_TIMEOUT has its connection closed so the process still ends.
  const shutdown = async () => {
    const force = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
    force.unref();
    try {
      await app.close();
      await context.close();
    } finally {
      clearTimeout(force);
      process.exit(0);
    }
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());

  await app.listen({ host: config.host, port: config.port });
}
