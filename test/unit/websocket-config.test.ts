/** The WebSocket limit settings: Directus's `Infinity` for "no limit", sizes as Directus writes them, bad values named. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/config/env-values.js';
import { readWebSocketConfig } from '../../src/config/websocket-config.js';

describe('websocket config', () => {
  it('defaults: 200 connections per address, 50 per user, 100 subscriptions, 1mb messages, 4mb of unsent data', () => {
    const config = readWebSocketConfig({});
    assert.deepEqual(config.limits, {
      connections: null,
      connectionsPerIp: 200,
      connectionsPerUser: 50,
      subscriptionsPerConnection: 100,
      maxMessageBytes: 1024 * 1024,
      maxBufferBytes: 4 * 1024 * 1024,
    });
    // Across a user's (an address's) sockets of both protocols: subscriptions, and distinct queries (reads per write).
    assert.deepEqual(config.subscriptionLimits, { perUser: 500, perIp: 2000, queriesPerUser: 50, queriesPerIp: 200 });
  });

  it('reads the subscription limits per user and per address, Infinity lifting one', () => {
    const { subscriptionLimits } = readWebSocketConfig({
      WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_USER: '10',
      WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_IP: 'Infinity',
      WEBSOCKETS_QUERY_LIMIT_PER_USER: '3',
      WEBSOCKETS_QUERY_LIMIT_PER_IP: '4',
    });
    assert.deepEqual(subscriptionLimits, { perUser: 10, perIp: null, queriesPerUser: 3, queriesPerIp: 4 });
  });

  it('reads counts, Infinity and sizes', () => {
    const { limits } = readWebSocketConfig({
      WEBSOCKETS_REST_CONN_LIMIT: '500',
      WEBSOCKETS_CONN_LIMIT_PER_IP: '20',
      WEBSOCKETS_CONN_LIMIT_PER_USER: '5',
      WEBSOCKETS_SUBSCRIPTION_LIMIT: 'Infinity',
      WEBSOCKETS_MAX_MESSAGE_SIZE: '64kb',
      WEBSOCKETS_MAX_BUFFER: '16mb',
    });
    assert.deepEqual(limits, {
      connections: 500,
      connectionsPerIp: 20,
      connectionsPerUser: 5,
      subscriptionsPerConnection: null,
      maxMessageBytes: 64 * 1024,
      maxBufferBytes: 16 * 1024 * 1024,
    });
  });

  it('names the setting of a bad value', () => {
    for (const [name, value] of [
      ['WEBSOCKETS_REST_CONN_LIMIT', '0'],
      ['WEBSOCKETS_CONN_LIMIT_PER_IP', 'many'],
      ['WEBSOCKETS_SUBSCRIPTION_LIMIT', '-1'],
      ['WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_USER', '0'],
      ['WEBSOCKETS_QUERY_LIMIT_PER_IP', 'some'],
      ['WEBSOCKETS_MAX_MESSAGE_SIZE', '-1mb'],
      ['WEBSOCKETS_MAX_BUFFER', 'lots'],
    ] as const) {
      assert.throws(
        () => readWebSocketConfig({ [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.message.includes(name),
        `${name}=${value}`,
      );
    }
  });
});
