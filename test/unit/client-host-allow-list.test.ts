import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isPaletteError } from '../../lib/core/errors.js';
import { parseHostAllowList } from '../../lib/auth/clients/host-allow-list.js';

describe('parseHostAllowList', () => {
  it('splits on commas, spaces and new lines, lowercases and drops repeats', () => {
    const list = parseHostAllowList(' Claude.AI, chatgpt.com\n*.Example.com\tclaude.ai ,, *.example.COM\r\n');
    assert.deepEqual(list.entries, ['claude.ai', 'chatgpt.com', '*.example.com']);
    assert.ok(Object.isFrozen(list.entries));
  });

  it('accepts an empty list, which allows nothing', () => {
    const list = parseHostAllowList('  \n ');
    assert.deepEqual(list.entries, []);
    assert.equal(list.allows('claude.ai'), false);
  });

  it('stores international names in the xn-- form that URL host names use', () => {
    const list = parseHostAllowList('bücher.example');
    assert.deepEqual(list.entries, ['xn--bcher-kva.example']);
    assert.equal(list.allows(new URL('https://bücher.example/x').hostname), true);
  });

  for (const entry of [
    'https://claude.ai',
    'claude.ai:443',
    'claude.ai/oauth',
    'user@claude.ai',
    '*',
    '*.',
    '*.com',
    'a.*.com',
    '*a.example.com',
    'foo*.example.com',
    '**.example.com',
    '*.*.example.com',
    '127.0.0.1',
    '10.0.0.1',
    '[::1]',
    '::1',
    'a_b.example.com',
    '-a.example.com',
    'a-.example.com',
    'a..example.com',
    '.example.com',
    `${'a'.repeat(64)}.example.com`,
  ]) {
    it(`rejects the entry ${JSON.stringify(entry)} and names it`, () => {
      assert.throws(
        () => parseHostAllowList(`claude.ai, ${entry}`),
        (error: unknown) => {
          assert.ok(isPaletteError(error));
          assert.equal(error.code, 'invalid_client_host');
          assert.ok(error.message.includes(`"${entry}"`), error.message);
          assert.equal(error.params['entry'], entry);
          return true;
        },
      );
    });
  }
});

describe('HostAllowList.allows', () => {
  const list = parseHostAllowList('claude.ai *.example.com');

  for (const host of ['claude.ai', 'CLAUDE.AI', 'claude.ai.', 'a.example.com', 'deep.a.example.com', 'A.Example.COM']) {
    it(`allows ${host}`, () => {
      assert.equal(list.allows(host), true);
    });
  }

  for (const host of [
    'example.com',
    'example.com.',
    'evil-example.com',
    'aexample.com',
    'example.com.evil.net',
    'a.example.com.evil.net',
    'www.claude.ai',
    'claude.ai.evil.com',
    'evilclaude.ai',
    'claude.aix',
    '.example.com',
    '..example.com',
    '',
    '127.0.0.1',
    '[::1]',
    'claude.ai:443',
  ]) {
    it(`does not allow ${JSON.stringify(host)}`, () => {
      assert.equal(list.allows(host), false);
    });
  }

  it('keeps exact entries exact: a listed host does not admit its subdomains', () => {
    const exactOnly = parseHostAllowList('example.com');
    assert.equal(exactOnly.allows('example.com'), true);
    assert.equal(exactOnly.allows('sub.example.com'), false);
  });
});
