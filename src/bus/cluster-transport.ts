/** The relay's transport in a cluster worker (relay-bus.ts): the IPC channel to the primary (workers/relay-hub.ts). */
import { isRelayMessage, type RelayMessage, type RelayTransport } from './relay-bus.js';

export function clusterTransport(): RelayTransport {
  return {
    send(message: RelayMessage) {
      // A channel already closed (the primary is stopping) drops the message; onClose has released the waiters.
      if (process.connected) process.send?.(message);
    },
    onMessage(handler) {
      process.on('message', (message: unknown) => {
        if (isRelayMessage(message)) handler(message);
      });
    },
    onClose(handler) {
      process.once('disconnect', handler);
    },
  };
}
