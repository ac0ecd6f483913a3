import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpPaletteError } from '../../lib/core/errors.js';
import { OAuthFailure } from '../../lib/auth/oauth-error.js';
import { createCryptoBox, SealError } from '../../lib/auth/refresh/crypto-box.js';
import { MAX_REFRESH_LIFETIMES, parseRefreshLifetimes } from '../../lib/auth/refresh/lifetimes.js';
import type { RefreshAuditEvent } from '../../lib/auth/refresh/refresh-audit.js';
import { parseOptionalRefreshKey, parseRefreshKey } from '../../lib/auth/refresh/refresh-key.js';
import { createRefreshService, type SessionGrant } from '../../lib/auth/refresh/refresh-service.js';
import { sha256 } from '../../lib/auth/secrets.js';
import type { UpstreamRefresher } from '../../lib/auth/upstream/upstream-refresh.js';
import { silentLogger } from '../../lib/core/logger.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import type { Store, StoreKey } from '../../lib/storage/store.js';

/** The refresh key, lifetimes, the AES-256-GCM box, and what the service leaves in storage. */

const KEY_HEX = '8f'.repeat(32);
const KEY = Buffer.from(KEY_HEX, 'hex');
const GRANT: SessionGrant = Object.freeze({
  clientId: 'https://client.example/oauth/client.json',
  client: 'client.example',
  resource: 'https://mcp.example/tools',
  scope: ['openid', 'offline_access'],
  identity: { subject: 'alice', groups: ['mcp-users'] },
});
const UPSTREAM_SECRET = 'upstream-refresh-credential-0123456789';

function throwsCode(fn: () => unknown, code: string): void {
  assert.throws(fn, (error: unknown) => error instanceof McpPaletteError && error.code === code);
}

describe('refresh key', () => {
  it('accepts exactly 64 hexadecimal characters (surrounding whitespace forgiven)', () => {
    assert.deepEqual(parseRefreshKey(KEY_HEX), KEY);
    assert.deepEqual(parseRefreshKey(`  ${KEY_HEX.toUpperCase()}\n`), KEY);
  });

  it('refuses anything else as invalid_refresh_key, without quoting it', () => {
    for (const bad of ['', KEY_HEX.slice(0, 62), `${KEY_HEX}00`, `${KEY_HEX.slice(0, 63)}g`, Buffer.from(KEY).toString('base64'), '00'.repeat(32)]) {
      assert.throws(() => parseRefreshKey(bad), (error: unknown) =>
        error instanceof McpPaletteError && error.code === 'invalid_refresh_key' && (bad === '' || !error.message.includes(bad)));
    }
  });

  it('treats an empty credential as refresh not configured', () => {
    assert.equal(parseOptionalRefreshKey(undefined), undefined);
    assert.equal(parseOptionalRefreshKey('  '), undefined);
    assert.deepEqual(parseOptionalRefreshKey(KEY_HEX), KEY);
    throwsCode(() => parseOptionalRefreshKey('abc'), 'invalid_refresh_key');
  });
});

describe('refresh lifetimes', () => {
  it('defaults to the maxima: 900 s access, 604800 s inactivity, 1814400 s absolute', () => {
    assert.deepEqual(parseRefreshLifetimes(), { accessSeconds: 900, inactivitySeconds: 604_800, absoluteSeconds: 1_814_400 });
    assert.deepEqual(parseRefreshLifetimes({ accessSeconds: '', inactivitySeconds: null }), MAX_REFRESH_LIFETIMES);
  });

  it('accepts shorter values, as numbers or editor text', () => {
    assert.deepEqual(parseRefreshLifetimes({ accessSeconds: 5, inactivitySeconds: '30', absoluteSeconds: 60 }), { accessSeconds: 5, inactivitySeconds: 30, absoluteSeconds: 60 });
  });

  it('refuses longer, zero, negative, fractional or non-numeric values', () => {
    for (const input of [{ accessSeconds: 901 }, { inactivitySeconds: 604_801 }, { absoluteSeconds: 1_814_401 }, { accessSeconds: 0 }, { accessSeconds: -1 }, { accessSeconds: 1.5 }, { accessSeconds: 'ten' }]) {
      throwsCode(() => parseRefreshLifetimes(input), 'invalid_refresh_lifetime');
    }
  });
});

describe('crypto box (AES-256-GCM, bound by additional data)', () => {
  const box = createCryptoBox(KEY);
  const sealed = box.seal('upstream', ['ns', 'session-1'], UPSTREAM_SECRET);

  it('opens what it sealed, under the same purpose and binding', () => {
    assert.equal(box.open('upstream', ['ns', 'session-1'], sealed), UPSTREAM_SECRET);
    assert.ok(!sealed.includes(UPSTREAM_SECRET));
    assert.notEqual(box.seal('upstream', ['ns', 'session-1'], UPSTREAM_SECRET), sealed, 'a fresh IV every time');
  });

  it('fails closed for another namespace, session, purpose or key, and for any altered byte', () => {
    assert.throws(() => box.open('upstream', ['other-ns', 'session-1'], sealed), SealError);
    assert.throws(() => box.open('upstream', ['ns', 'session-2'], sealed), SealError);
    assert.throws(() => box.open('pending', ['ns', 'session-1'], sealed), SealError);
    assert.throws(() => createCryptoBox(Buffer.alloc(32, 1)).open('upstream', ['ns', 'session-1'], sealed), SealError);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[2]!, 'base64url');
    body[0] = body[0]! ^ 1;
    assert.throws(() => box.open('upstream', ['ns', 'session-1'], [parts[0], parts[1], body.toString('base64url'), parts[3]].join('.')), SealError);
    assert.throws(() => box.open('upstream', ['ns', 'session-1'], 'v1.not.a-seal'), SealError);
  });

  it('refuses a key that is not 32 bytes', () => {
    throwsCode(() => createCryptoBox(Buffer.alloc(16)), 'invalid_refresh_key');
  });
});

/** Records every value written, so a test can search storage for anything that grants access. */
function recordingStore(inner: MemoryStore): { store: Store; written: string[] } {
  const written: string[] = [];
  const store = new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (property === 'put' || property === 'putIfAbsent') written.push(String((args[0] as StoreKey).id), String(args[1]));
        if (property === 'compareAndSet') written.push(String((args[0] as StoreKey).id), String(args[2]));
        return (value as (...parameters: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as unknown as Store;
  return { store, written };
}

function service(store: Store, options: { namespace?: string; key?: Buffer; events?: RefreshAuditEvent[]; calls?: string[] } = {}) {
  const upstream: UpstreamRefresher = {
    async refresh(token, subject) {
      options.calls?.push(token);
      return { identity: { subject, groups: ['mcp-users'] }, upstreamRefreshToken: `${UPSTREAM_SECRET}-rotated` };
    },
  };
  return createRefreshService({
    store,
    namespace: options.namespace ?? 'ns-crypto',
    key: options.key ?? KEY,
    lifetimes: parseRefreshLifetimes(),
    upstream,
    audit: (event) => void options.events?.push(event),
    logger: silentLogger,
  });
}

async function sessionIdOf(store: Store, namespace: string, refreshToken: string): Promise<string> {
  return (JSON.parse((await store.get({ namespace, kind: 'refresh-token', id: sha256(refreshToken) }))!) as { session: string }).session;
}

async function refusesWithInvalidGrant(promise: Promise<unknown>): Promise<void> {
  await assert.rejects(promise, (error: unknown) => error instanceof OAuthFailure && error.error === 'invalid_grant');
}

describe('refresh service: carrying the provider credential through the one-time code', () => {
  it('seals it to the namespace and the code hash; anything else fails closed', () => {
    const one = service(new MemoryStore(), { namespace: 'ns-a' });
    const sealed = one.sealUpstreamForCode(UPSTREAM_SECRET, sha256('code-1'));
    assert.ok(!sealed.includes(UPSTREAM_SECRET));
    assert.equal(one.openUpstreamForCode(sealed, sha256('code-1')), UPSTREAM_SECRET);
    assert.equal(one.openUpstreamForCode(sealed, sha256('code-2')), undefined);
    assert.equal(one.openUpstreamForCode(undefined, sha256('code-1')), undefined);
    assert.equal(service(new MemoryStore(), { namespace: 'ns-b' }).openUpstreamForCode(sealed, sha256('code-1')), undefined);
    assert.equal(service(new MemoryStore(), { namespace: 'ns-a', key: Buffer.alloc(32, 5) }).openUpstreamForCode(sealed, sha256('code-1')), undefined);
  });
});

describe('refresh service: what storage holds', () => {
  it('stores only hashes of MCP tokens and only sealed provider credentials and responses', async () => {
    const memory = new MemoryStore();
    const { store, written } = recordingStore(memory);
    const refresh = service(store);
    const started = await refresh.startSession(GRANT, UPSTREAM_SECRET);
    const first = await refresh.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    await refresh.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    const dump = written.join('\n');
    for (const secret of [started.accessToken, started.refreshToken!, first.accessToken, first.refreshToken, UPSTREAM_SECRET]) {
      assert.ok(!dump.includes(secret), 'no token or provider credential in storage');
    }
    assert.ok(dump.includes(sha256(first.refreshToken)), 'the refresh token is found by its hash');
  });

  it('fails closed when the sealed provider credential was altered: the session ends, the provider is not called', async () => {
    const memory = new MemoryStore();
    const calls: string[] = [];
    const events: RefreshAuditEvent[] = [];
    const refresh = service(memory, { calls, events });
    const started = await refresh.startSession(GRANT, UPSTREAM_SECRET);
    const id = await sessionIdOf(memory, 'ns-crypto', started.refreshToken!);
    const key = { namespace: 'ns-crypto', kind: 'refresh-session', id };
    const record = JSON.parse((await memory.get(key))!) as { upstream: string };
    const parts = record.upstream.split('.');
    const body = Buffer.from(parts[2]!, 'base64url');
    body[1] = body[1]! ^ 0x20;
    record.upstream = [parts[0], parts[1], body.toString('base64url'), parts[3]].join('.');
    await memory.put(key, JSON.stringify(record), 3600);
    await refusesWithInvalidGrant(refresh.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }));
    assert.deepEqual(calls, []);
    assert.equal(events[0]?.reason, 'upstream_credential_unreadable');
    assert.equal(await memory.get(key), undefined, 'the session is gone');
  });

  it('fails closed for a session copied into another namespace, or read with another key', async () => {
    const memory = new MemoryStore();
    const calls: string[] = [];
    const original = service(memory, { namespace: 'ns-a' });
    const started = await original.startSession(GRANT, UPSTREAM_SECRET);
    const id = await sessionIdOf(memory, 'ns-a', started.refreshToken!);
    const copy = async (kind: string, recordId: string) =>
      memory.put({ namespace: 'ns-b', kind, id: recordId }, (await memory.get({ namespace: 'ns-a', kind, id: recordId }))!, 3600);
    await copy('refresh-session', id);
    await copy('refresh-token', sha256(started.refreshToken!));
    await refusesWithInvalidGrant(service(memory, { namespace: 'ns-b', calls }).refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }));
    await refusesWithInvalidGrant(service(memory, { namespace: 'ns-a', key: Buffer.alloc(32, 3), calls }).refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }));
    assert.deepEqual(calls, [], 'the provider never saw a credential that did not open');
  });

  it('does not hand out a grace response that was altered or moved: that retry is reuse', async () => {
    const memory = new MemoryStore();
    const events: RefreshAuditEvent[] = [];
    const refresh = service(memory, { events });
    const started = await refresh.startSession(GRANT, UPSTREAM_SECRET);
    await refresh.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    const id = await sessionIdOf(memory, 'ns-crypto', started.refreshToken!);
    const record = JSON.parse((await memory.get({ namespace: 'ns-crypto', kind: 'refresh-session', id }))!) as { previous: string; rotatedBy: string };
    const graceKey = { namespace: 'ns-crypto', kind: 'refresh-grace', id: `${record.previous}.${record.rotatedBy}` };
    const sealed = (await memory.get(graceKey))!;
    // A well-formed response, but sealed for another session: it does not open here.
    const forged = { accessToken: 'forged-access', refreshToken: 'forged-refresh', scope: GRANT.scope, accessExpiresAt: Date.now() + 600_000 };
    const foreign = createCryptoBox(KEY).seal('grace', ['ns-crypto', 'another-session', record.previous, record.rotatedBy], JSON.stringify(forged));
    assert.notEqual(foreign, sealed);
    await memory.put(graceKey, foreign, 30);
    await refusesWithInvalidGrant(refresh.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }));
    assert.deepEqual(events.map((event) => [event.outcome, event.reason]), [['success', undefined], ['replay', 'grace_response_missing']]);
  });
});
