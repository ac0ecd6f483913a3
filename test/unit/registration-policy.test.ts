import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { McpPaletteError } from '../../lib/core/errors.js';
import { addressGroup, addressSubject, countEvent } from '../../lib/auth/registration/rate-limit.js';
import { checkRedirectUri } from '../../lib/auth/registration/registration-redirects.js';
import { parseCustomSchemes, parseRegistrationPolicy, REGISTRATION_LIMITS } from '../../lib/auth/registration/registration-policy.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';

function refusedWith(code: string, entry?: string) {
  return (error: unknown) => error instanceof McpPaletteError && error.code === code && (entry === undefined || error.params.entry === entry);
}

describe('parseRegistrationPolicy', () => {
  it('is off, without custom schemes and with a 30-day unused period when nothing is set', () => {
    const policy = parseRegistrationPolicy({});
    assert.equal(policy.enabled, false);
    assert.deepEqual(policy.customSchemes, []);
    assert.equal(policy.unusedSeconds, 30 * 86_400);
    assert.equal(policy.maxBodyBytes, 8 * 1024);
    assert.equal(policy.maxRedirectUris, 10);
    assert.equal(policy.maxUriLength, 2048);
    assert.equal(policy.maxClientNameLength, 200);
    assert.deepEqual(policy.perAddress, { max: 10, windowSeconds: 600 });
    assert.deepEqual(policy.perNamespace, { max: 1000, windowSeconds: 3600 });
    assert.ok(Object.isFrozen(policy) && Object.isFrozen(policy.customSchemes) && Object.isFrozen(REGISTRATION_LIMITS.perAddress));
  });

  it('reads the editor fields as the editor saves them', () => {
    const policy = parseRegistrationPolicy({ dcrEnabled: true, dcrSchemes: 'cursor', dcrUnusedDays: '7' });
    assert.equal(policy.enabled, true);
    assert.deepEqual(policy.customSchemes, ['cursor']);
    assert.equal(policy.unusedSeconds, 7 * 86_400);
    assert.equal(parseRegistrationPolicy({ dcrEnabled: 'true' }).enabled, true);
    assert.equal(parseRegistrationPolicy({ dcrEnabled: 'false' }).enabled, false);
    assert.equal(parseRegistrationPolicy({ dcrEnabled: 1 }).enabled, false);
    assert.equal(parseRegistrationPolicy({ dcrUnusedDays: 365 }).unusedSeconds, 365 * 86_400);
    assert.equal(parseRegistrationPolicy({ dcrUnusedDays: ' 1 ' }).unusedSeconds, 86_400);
  });

  it('refuses unused periods outside 1-365 whole days', () => {
    for (const days of [0, 366, 1.5, -1, 'abc', '30d', true]) {
      assert.throws(() => parseRegistrationPolicy({ dcrUnusedDays: days }), refusedWith('invalid_dcr_unused_days'), String(days));
    }
  });
});

describe('parseCustomSchemes', () => {
  it('accepts RFC 3986 scheme names in any case, with or without ":" or "://", deduplicated', () => {
    assert.deepEqual(parseCustomSchemes('cursor, Cursor://\ncom.example.app:  vscode+insiders  my-app'), [
      'cursor',
      'com.example.app',
      'vscode+insiders',
      'my-app',
    ]);
    assert.deepEqual(parseCustomSchemes('  \n '), []);
  });

  it('refuses what is not a scheme name', () => {
    for (const entry of ['1cursor', 'cur_sor', 'cur/sor', 'cursor:/x', '-app', 'x'.repeat(65), 'ä']) {
      assert.throws(() => parseCustomSchemes(entry), refusedWith('invalid_dcr_scheme', entry), entry);
    }
  });

  it('never allows web, script or local schemes as custom ones', () => {
    for (const entry of ['http', 'HTTPS', 'https://', 'javascript:', 'data', 'file', 'vbscript', 'blob', 'about', 'ws', 'wss']) {
      assert.throws(() => parseCustomSchemes(entry), refusedWith('invalid_dcr_scheme', entry), entry);
    }
  });
});

describe('checkRedirectUri', () => {
  const check = (uri: unknown, schemes: readonly string[] = []) => checkRedirectUri(uri, schemes, 2048);

  it('classifies https, loopback http on any port and allowed custom schemes', () => {
    assert.deepEqual(check('https://claude.ai/api/mcp/auth_callback'), { ok: true, kind: 'https' });
    assert.deepEqual(check('https://vscode.dev/redirect'), { ok: true, kind: 'https' });
    for (const uri of [
      'http://127.0.0.1:33418/',
      'http://127.0.0.1:54321/callback/3f9a',
      'http://localhost:6274/oauth/callback',
      'http://localhost/callback',
      'http://[::1]:8080/cb?x=1',
      'http://127.0.0.1',
    ]) {
      assert.deepEqual(check(uri), { ok: true, kind: 'loopback' }, uri);
    }
    assert.deepEqual(check('cursor://anysphere.cursor-mcp/oauth/callback', ['cursor']), { ok: true, kind: 'custom' });
    assert.deepEqual(check('com.example.app:/oauth2redirect', ['com.example.app']), { ok: true, kind: 'custom' });
  });

  it('refuses everything else, without echoing the URI', () => {
    const refused: unknown[] = [
      'http://example.com/callback',
      'http://127.0.0.2/callback',
      'http://127.1/callback',
      'http://LOCALHOST/callback',
      'http://localhost.example.com/callback',
      'http://localhost:99999/callback',
      'http://user@localhost/callback',
      'https://user:secret@example.com/callback',
      'https://example.com/callback#',
      'https://example.com/callback#fragment',
      'https://exa mple.com/callback',
      'https://example.com/\\callback',
      'https://example.com/call\nback',
      'javascript:alert(1)',
      'data:text/html,hi',
      'file:///etc/passwd',
      'cursor://anysphere.cursor-mcp/oauth/callback',
      '/relative/callback',
      '',
      42,
      null,
      `https://example.com/${'a'.repeat(2048)}`,
    ];
    for (const uri of refused) {
      const result = check(uri);
      assert.equal(result.ok, false, String(uri));
      if (!result.ok && typeof uri === 'string' && uri.length > 12) assert.ok(!result.why.includes(uri), result.why);
    }
  });
});

describe('registration rate windows', () => {
  it('groups peers by IPv4 address and IPv6 /64, whatever the spelling', () => {
    const groups: Array<[peer: string | undefined, group: string]> = [
      ['203.0.113.7', '203.0.113.7'],
      ['::ffff:203.0.113.7', '203.0.113.7'],
      ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
      ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
      ['2001:DB8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
      ['::1', '0:0:0:0::/64'],
      ['fe80::1%eth0', 'fe80:0:0:0::/64'],
      ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
      [undefined, 'unknown'],
      ['not an address', 'unknown'],
    ];
    for (const [peer, group] of groups) assert.equal(addressGroup(peer), group, String(peer));
    assert.notEqual(addressSubject('2001:db8:1:2::1'), addressSubject('2001:db8:1:3::1'));
    assert.equal(addressSubject('2001:db8:1:2::1'), addressSubject('2001:db8:1:2:aaaa::9'));
    assert.ok(!addressSubject('203.0.113.7').includes('203'), 'addresses are stored hashed');
  });

  it('counts into clock-aligned windows and tells how long until the window ends', async () => {
    let time = 1_700_000_000_000 - (1_700_000_000_000 % 600_000);
    const store = new MemoryStore({ now: () => time });
    const limit = { max: 2, windowSeconds: 600 };
    try {
      assert.deepEqual(await countEvent(store, 'ns', 'ip:a', limit, time), { allowed: true });
      time += 100_000;
      assert.deepEqual(await countEvent(store, 'ns', 'ip:a', limit, time), { allowed: true });
      assert.deepEqual(await countEvent(store, 'ns', 'ip:b', limit, time), { allowed: true });
      time += 150_500;
      assert.deepEqual(await countEvent(store, 'ns', 'ip:a', limit, time), { allowed: false, retryAfterSeconds: 350, first: true });
      assert.deepEqual(await countEvent(store, 'ns', 'ip:a', limit, time), { allowed: false, retryAfterSeconds: 350, first: false });
      time += 349_500;
      assert.deepEqual(await countEvent(store, 'ns', 'ip:a', limit, time), { allowed: true });
    } finally {
      await store.close();
    }
  });
});
