import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, readConfig } from '../../src/config/config.js';

describe('write settings', () => {
  it('reads sizes as Directus writes them (the bytes package, binary units)', () => {
    const sizes: [string, number][] = [
      ['1mb', 1_048_576],
      ['500kb', 512_000],
      ['1.5MB', 1_572_864],
      ['2048', 2048],
      ['1 gb', 1_073_741_824],
      [' 2 TB ', 2 * 1024 ** 4],
      ['1.5b', 1],
    ];
    for (const [text, bytes] of sizes) {
      assert.equal(readConfig({ MAX_PAYLOAD_SIZE: text }).maxPayloadSize, bytes, text);
      assert.equal(readConfig({ IMPORT_MAX_FILE_SIZE: text }).io.importMaxFileSize, bytes, text);
    }
  });

  it('refuses what is not a size, or not a positive one, naming the variable', () => {
    // `bytes` alone would read 12abc as 12 and -1mb as a negative size; pb was never a unit here.
    for (const text of ['ten mb', '-1mb', '12abc', '0', '0kb', '1pb', 'mb', '1e3']) {
      for (const name of ['MAX_PAYLOAD_SIZE', 'IMPORT_MAX_FILE_SIZE']) {
        assert.throws(
          () => readConfig({ [name]: text }),
          (error: unknown) => error instanceof ConfigError && error.variable === name,
          `${name}=${text}`,
        );
      }
    }
  });

  it('defaults MAX_PAYLOAD_SIZE to 1mb and MAX_BATCH_MUTATION to no limit', () => {
    const config = readConfig({});
    assert.equal(config.maxPayloadSize, 1_048_576);
    assert.equal(config.maxBatchMutation, Infinity);
    assert.equal(readConfig({ MAX_PAYLOAD_SIZE: '10mb', MAX_BATCH_MUTATION: '100' }).maxPayloadSize, 10_485_760);
    assert.equal(readConfig({ MAX_BATCH_MUTATION: '100' }).maxBatchMutation, 100);
    assert.equal(readConfig({ MAX_BATCH_MUTATION: 'Infinity' }).maxBatchMutation, Infinity);
  });

  it('names the variable of a bad value', () => {
    for (const env of [
      { MAX_PAYLOAD_SIZE: 'big' },
      { MAX_PAYLOAD_SIZE: '0' },
      { MAX_BATCH_MUTATION: '0' },
      { MAX_BATCH_MUTATION: 'many' },
    ]) {
      assert.throws(
        () => readConfig(env),
        (error: unknown) => error instanceof ConfigError && error.variable === Object.keys(env)[0],
      );
    }
  });
});
