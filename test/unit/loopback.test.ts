import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isLoopbackHost } from '../../lib/access/loopback.js';

describe('isLoopbackHost', () => {
  for (const host of [
    '127.0.0.1',
    '127.5.6.7',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    'localhost',
    'LOCALHOST',
    'foo.localhost',
    '::ffff:127.0.0.1',
    '[::ffff:127.0.0.1]',
    '0:0:0:0:0:ffff:127.0.0.1',
  ]) {
    it(`treats ${host} as loopback`, () => {
      assert.equal(isLoopbackHost(host), true);
    });
  }

  for (const host of [
    '0.0.0.0',
    '10.0.0.1',
    '::',
    'example.com',
    '192.168.1.1',
    '::ffff:10.0.0.1',
    'localhost.example.com',
    '128.0.0.1',
    '',
  ]) {
    it(`does not treat ${JSON.stringify(host)} as loopback`, () => {
      assert.equal(isLoopbackHost(host), false);
    });
  }

  // Other spellings of the same loopback addresses (new URL() itself rewrites ::ffff:127.0.0.1 to
  // ::ffff:7f00:1), so matching must compare addresses, not text.
  for (const host of ['::ffff:7f00:1', '0000:0000::1', '::0:1']) {
    it(`treats the alternative spelling ${host} as loopback`, () => {
      assert.equal(isLoopbackHost(host), true);
    });
  }
});
