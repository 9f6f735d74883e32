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

  const shutdown = async () => {
    await app.close();
    await context.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());

  await app.listen({ host: config.host, port: config.port });
}
