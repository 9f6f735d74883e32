import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseByteSize } from '../../src/config/byte-size.js';
import { ConfigError, readConfig } from '../../src/config/config.js';

describe('write settings', () => {
  it('reads sizes as Directus writes them', () => {
    assert.equal(parseByteSize('1mb'), 1_048_576);
    assert.equal(parseByteSize('500kb'), 512_000);
    assert.equal(parseByteSize('1.5MB'), 1_572_864);
    assert.equal(parseByteSize('2048'), 2048);
    assert.equal(parseByteSize('1 gb'), 1_073_741_824);
    assert.equal(parseByteSize('ten mb'), null);
    assert.equal(parseByteSize('-1mb'), null);
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
    for (const env of [{ MAX_PAYLOAD_SIZE: 'big' }, { MAX_PAYLOAD_SIZE: '0' }, { MAX_BATCH_MUTATION: '0' }, { MAX_BATCH_MUTATION: 'many' }]) {
      assert.throws(() => readConfig(env), (error: unknown) => error instanceof ConfigError && error.variable === Object.keys(env)[0]);
    }
  });
});
