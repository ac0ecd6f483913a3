// The consent module's pure parts: text made safe to show, what a redirect_uri means to the user and
// to CSP, the editor settings, and remembered approvals straight against a MemoryStore.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayText, escapeHtml, pageHeaders } from '../../lib/auth/consent/consent-page.js';
import { parseConsentPolicy } from '../../lib/auth/consent/consent-settings.js';
import { createConsent } from '../../lib/auth/consent/consent.js';
import { redirectTarget } from '../../lib/auth/consent/redirect-target.js';
import { RememberedApprovals } from '../../lib/auth/consent/remembered-approvals.js';
import type { ConsentRequest } from '../../lib/auth/consent/consent-types.js';
import { silentLogger } from '../../lib/core/logger.js';
import { isPaletteError } from '../../lib/core/errors.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';

const request: ConsentRequest = {
  clientId: 'https://client.example.com/metadata.json',
  registeredClient: false,
  redirectUri: 'https://client.example.com/cb',
  endpointPath: '/mcp',
  scope: ['mcp:tools'],
  subject: 'sub-1',
};

describe('escapeHtml and displayText', () => {
  it('escapes the five HTML-significant characters', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;');
  });

  it('cuts by characters, not UTF-16 units, and marks the cut', () => {
    const emoji = '😀'.repeat(100);
    const cut = displayText(emoji, 10);
    assert.equal(Array.from(cut).length, 10);
    assert.ok(cut.endsWith('…'));
    assert.ok(!/[\ud800-\udbff]…$/.test(cut), 'no half surrogate pair');
    assert.equal(displayText('short', 10), 'short');
  });

  it('removes bidi overrides, zero-width and control characters, collapsing whitespace', () => {
    assert.equal(displayText('Claude\u202e\u200b\u2066 Desktop\r\n\t x'), 'Claude Desktop x');
  });
});

describe('redirectTarget', () => {
  it('shows an https host with its port, remembers the host name, allows its origin', () => {
    assert.deepEqual(redirectTarget('https://app.example.com:8443/cb?x=1'), {
      display: 'app.example.com:8443',
      host: 'app.example.com',
      formActionSource: 'https://app.example.com:8443',
    });
  });

  it('names loopback as this computer, and falls back to the scheme for IPv6', () => {
    assert.equal(redirectTarget('http://localhost:3000/cb').display, 'localhost:3000 (this computer)');
    assert.deepEqual(redirectTarget('http://[::1]:3000/cb'), { display: '[::1]:3000 (this computer)', host: '[::1]', formActionSource: 'http:' });
  });

  it('names app schemes, and never lets form-action reach script-like schemes', () => {
    assert.equal(redirectTarget('cursor://anysphere.cursor-retrieval/oauth').display, 'cursor://anysphere.cursor-retrieval (an app on this computer)');
    assert.equal(redirectTarget('com.example.app:/oauth').formActionSource, 'com.example.app:');
    assert.equal(redirectTarget('javascript:alert(1)').formActionSource, undefined);
    assert.equal(redirectTarget('data:text/html,x').formActionSource, undefined);
    assert.deepEqual(redirectTarget('not a url'), { display: 'not a url', host: 'not a url' });
  });

  it('produces a CSP with the required directives', () => {
    const csp = pageHeaders('https://a.example')['content-security-policy'];
    assert.equal(csp, "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https://a.example; frame-ancestors 'none'; base-uri 'none'");
    assert.equal(pageHeaders()['content-security-policy'], "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  });
});

describe('parseConsentPolicy', () => {
  it('defaults to 30 days and no trusted clients', () => {
    const policy = parseConsentPolicy({});
    assert.equal(policy.rememberSeconds, 30 * 86_400);
    assert.equal(policy.trustedClientIds.size, 0);
    assert.equal(parseConsentPolicy({ consentRememberDays: '' }).rememberSeconds, 30 * 86_400);
  });

  it('accepts 0 (always ask) up to 365 whole days', () => {
    assert.equal(parseConsentPolicy({ consentRememberDays: 0 }).rememberSeconds, 0);
    assert.equal(parseConsentPolicy({ consentRememberDays: '7' }).rememberSeconds, 7 * 86_400);
    assert.equal(parseConsentPolicy({ consentRememberDays: 365 }).rememberSeconds, 365 * 86_400);
    for (const bad of [-1, 366, 1.5, 'soon']) {
      assert.throws(() => parseConsentPolicy({ consentRememberDays: bad }), (error) => isPaletteError(error) && error.code === 'invalid_consent_remember_days');
    }
  });

  it('reads trusted client ids, one per line or separated by spaces or commas', () => {
    const policy = parseConsentPolicy({ consentTrustedClients: 'https://a.example.com/c.json\n https://b.example.com/d.json, https://c.example.com/e.json\n' });
    assert.deepEqual([...policy.trustedClientIds], ['https://a.example.com/c.json', 'https://b.example.com/d.json', 'https://c.example.com/e.json']);
  });

  it('refuses trusted ids that are not canonical https client_id URLs', () => {
    for (const bad of ['http://a.example.com/c.json', 'dcr-client-id', 'https://A.example.com/c.json', 'https://a.example.com/c.json#x']) {
      assert.throws(() => parseConsentPolicy({ consentTrustedClients: bad }), (error) => isPaletteError(error) && error.code === 'invalid_trusted_clients', bad);
    }
  });
});

describe('RememberedApprovals', () => {
  it('keeps both of two concurrent approvals (compare-and-set)', async () => {
    const store = new MemoryStore();
    const approvals = new RememberedApprovals(store, 'ns', Date.now);
    const endpoints = ['/a', '/b', '/c', '/d'];
    await Promise.all(endpoints.map((endpointPath) => approvals.remember({ ...request, endpointPath }, 3600)));
    for (const endpointPath of endpoints) assert.equal(await approvals.covers({ ...request, endpointPath }, 3600), true, endpointPath);
    await store.close();
  });

  it('stores only hashes of the subject and client id in keys', async () => {
    const store = new MemoryStore();
    const seen: string[] = [];
    const spy = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const key = args[0] as { id?: string } | undefined;
          if (key?.id) seen.push(key.id);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    await new RememberedApprovals(spy, 'ns', Date.now).remember(request, 3600);
    assert.ok(seen.length > 0);
    for (const id of seen) {
      assert.ok(!id.includes('sub-1') && !id.includes('client.example.com'));
      assert.match(id, /^[A-Za-z0-9_-]{43}$/);
    }
    await store.close();
  });

  it('counts each approval\'s own age even after the record is renewed', async () => {
    let now = 1_000_000;
    const store = new MemoryStore({ now: () => now });
    const approvals = new RememberedApprovals(store, 'ns', () => now);
    await approvals.remember({ ...request, endpointPath: '/old' }, 100);
    now += 90_000;
    await approvals.remember({ ...request, endpointPath: '/new' }, 100);
    now += 20_000;
    assert.equal(await approvals.covers({ ...request, endpointPath: '/old' }, 100), false);
    assert.equal(await approvals.covers({ ...request, endpointPath: '/new' }, 100), true);
    await store.close();
  });

  it('treats a damaged record as no approval', async () => {
    const store = new MemoryStore();
    const approvals = new RememberedApprovals(store, 'ns', Date.now);
    await approvals.remember(request, 3600);
    const spy = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property === 'get') return () => Promise.resolve('{not json');
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    assert.equal(await new RememberedApprovals(spy, 'ns', Date.now).covers(request, 3600), false);
    await store.close();
  });
});

describe('createConsent', () => {
  it('refuses a negative or fractional rememberSeconds', () => {
    const store = new MemoryStore();
    for (const rememberSeconds of [-1, 1.5, Number.NaN]) {
      assert.throws(() =>
        createConsent({
          store,
          namespace: 'ns',
          slug: 's',
          issuer: 'https://x.example',
          policy: { rememberSeconds, trustedClientIds: new Set() },
          secureCookies: true,
          logger: silentLogger,
        }),
      );
    }
    void store.close();
  });
});
