// redeemCode (the authorization_code grant's use of storage) over MemoryStore, with the real refresh
// service, and a store that stalls the way a hung Redis connection does: commands sent while it
// hangs get no answer (they time out), yet run later, in the order they were sent.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { redeemCode, type CodePresentation } from '../../lib/auth/bridge/code-redemption.js';
import type { BridgeContext } from '../../lib/auth/bridge/bridge-context.js';
import { encodeRecord, RECORD_KINDS, type IssuedCode } from '../../lib/auth/sign-in-records.js';
import { OAuthFailure } from '../../lib/auth/oauth-error.js';
import { pkcePair } from '../support/oauth-client.js';
import { issueAccessToken } from '../../lib/auth/refresh/access-tokens.js';
import type { RefreshService } from '../../lib/auth/refresh/refresh-service.js';
import { sha256 } from '../../lib/auth/secrets.js';
import { silentLogger } from '../../lib/core/logger.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { StorageUnavailableError, type Store } from '../../lib/storage/store.js';
import { refreshHarness, refusal } from './refresh-fixtures.js';

const NAMESPACE = 'ns-code-test';
const CLIENT_ID = 'https://client.example/oauth/client.json';
const REDIRECT = 'http://127.0.0.1:40000/callback';

type Operation = 'put' | 'putIfAbsent' | 'get' | 'take' | 'compareAndSet' | 'delete' | 'increment';

/** Delegates to `inner`; once stalled, every command is held (and times out) until thaw() runs them in order. */
class StallingStore implements Store {
  readonly mode = 'redis' as const;
  readonly state = 'ready' as const;
  private stallAt: Operation | undefined;
  private held: Array<() => Promise<unknown>> | undefined;

  constructor(private readonly inner: MemoryStore) {}

  /** From the next `operation` on, commands hang. */
  stallFrom(operation: Operation): void {
    this.stallAt = operation;
  }

  async thaw(): Promise<void> {
    const held = this.held ?? [];
    this.held = undefined;
    this.stallAt = undefined;
    for (const command of held) await command().catch(() => undefined);
  }

  private run<T>(operation: Operation, command: () => Promise<T>): Promise<T> {
    if (this.stallAt === operation) this.held ??= [];
    if (this.held) {
      this.held.push(command);
      return Promise.reject(new StorageUnavailableError('timeout'));
    }
    return command();
  }

  put: Store['put'] = (key, value, ttl) => this.run('put', () => this.inner.put(key, value, ttl));
  putIfAbsent: Store['putIfAbsent'] = (key, value, ttl) => this.run('putIfAbsent', () => this.inner.putIfAbsent(key, value, ttl));
  get: Store['get'] = (key) => this.run('get', () => this.inner.get(key));
  take: Store['take'] = (key) => this.run('take', () => this.inner.take(key));
  compareAndSet: Store['compareAndSet'] = (key, expected, next, ttl) => this.run('compareAndSet', () => this.inner.compareAndSet(key, expected, next, ttl));
  delete: Store['delete'] = (key) => this.run('delete', () => this.inner.delete(key));
  increment: Store['increment'] = (key, ttl) => this.run('increment', () => this.inner.increment(key, ttl));
  addToBoundedSet: Store['addToBoundedSet'] = (key, member, ttl, limit) => this.inner.addToBoundedSet(key, member, ttl, limit);
  removeFromSet: Store['removeFromSet'] = (key, member) => this.inner.removeFromSet(key, member);
  countSet: Store['countSet'] = (key) => this.inner.countSet(key);
  publish: Store['publish'] = (channel, message) => this.inner.publish(channel, message);
  subscribe: Store['subscribe'] = (channel, listener) => this.inner.subscribe(channel, listener);
  publishOnClose: Store['publishOnClose'] = (channel, message) => this.inner.publishOnClose(channel, message);
  onState: Store['onState'] = () => () => undefined;
  close: Store['close'] = () => this.inner.close();
}

function context(store: Store, refresh?: RefreshService): BridgeContext {
  return { namespace: NAMESPACE, store, refresh, logger: silentLogger, accessTokenTtlSeconds: 900 } as unknown as BridgeContext;
}

/** A code as the callback stores it; returns what the client holds. */
async function storeCode(store: Store, scope: string[] = ['mcp']): Promise<CodePresentation> {
  const code = randomBytes(32).toString('base64url');
  const { verifier, challenge } = pkcePair();
  const issued: IssuedCode = {
    clientId: CLIENT_ID,
    client: 'client.example',
    redirectUri: REDIRECT,
    codeChallenge: challenge,
    resource: 'http://127.0.0.1:1881/tools',
    scope,
    identity: { subject: 'alice', groups: ['staff'] },
    expiresAt: Date.now() + 300_000,
  };
  await store.put({ namespace: NAMESPACE, kind: RECORD_KINDS.code, id: sha256(code) }, encodeRecord(issued), 300);
  return { code, clientId: CLIENT_ID, redirectUri: REDIRECT, verifier };
}

/** The token endpoint's plain path: one access token, its hash kept for revocation. */
function accessOnly(store: Store) {
  return async (issued: IssuedCode) => {
    const token = await issueAccessToken(store, NAMESPACE, { ...issued, session: 'abcdefabcdef' }, 900);
    return { accessToken: token.accessToken, issuedFrom: { accessToken: token.hash } };
  };
}

const accessRecord = (memory: MemoryStore, token: string) => memory.get({ namespace: NAMESPACE, kind: RECORD_KINDS.access, id: sha256(token) });

async function rejectsWith(promise: Promise<unknown>, error: string, reason: string) {
  const failure = await promise.then(
    () => assert.fail('expected a refusal'),
    (thrown: unknown) => thrown,
  );
  assert.ok(failure instanceof OAuthFailure, String(failure));
  assert.equal(failure.error, error);
  assert.equal(failure.reason, reason);
  return failure;
}

describe('redeemCode: a code works once', () => {
  it('refuses a second use and revokes the access token the first use got (OAuth 2.1 §4.1.3)', async () => {
    const memory = new MemoryStore();
    const ctx = context(memory);
    const presented = await storeCode(memory);
    const first = await redeemCode(ctx, presented, accessOnly(memory));
    assert.ok(await accessRecord(memory, first.tokens.accessToken), 'the first use got a working token');
    const replay = await rejectsWith(redeemCode(ctx, presented, accessOnly(memory)), 'invalid_grant', 'code_replay');
    assert.deepEqual(replay.about, { subject: 'alice', client: 'client.example' }, 'the audit line can say whose code it was');
    assert.equal(await accessRecord(memory, first.tokens.accessToken), undefined, 'the token issued from the code is revoked');
    await rejectsWith(redeemCode(ctx, presented, accessOnly(memory)), 'invalid_grant', 'code_replay');
    await memory.close();
  });

  it('ends the refresh session started from the code, with every access token it issued', async () => {
    const harness = refreshHarness({ namespace: NAMESPACE, key: randomBytes(32) });
    const ctx = context(harness.memory, harness.service);
    const presented = await storeCode(harness.memory, ['mcp', 'offline_access']);
    const issue = async (issued: IssuedCode) => {
      const started = await harness.service.startSession(issued, 'upstream-refresh-token');
      return { started, issuedFrom: { accessToken: sha256(started.accessToken), session: started.sessionId } };
    };
    const first = await redeemCode(ctx, presented, issue);
    const refreshToken = first.tokens.started.refreshToken!;
    const rotated = await harness.service.refresh({ refreshToken, clientId: CLIENT_ID });
    assert.ok(await accessRecord(harness.memory, rotated.accessToken));

    await rejectsWith(redeemCode(ctx, presented, issue), 'invalid_grant', 'code_replay');
    assert.equal(await accessRecord(harness.memory, first.tokens.started.accessToken), undefined);
    assert.equal(await accessRecord(harness.memory, rotated.accessToken), undefined, 'tokens the session issued since are revoked too');
    await refusal(harness.service.refresh({ refreshToken: rotated.refreshToken, clientId: CLIENT_ID }), 'invalid_grant');
    assert.ok(harness.events.some((event) => event.outcome === 'revoked' && event.reason === 'code_replay' && event.subject === 'alice'));
    await harness.memory.close();
  });

  it('spends a code presented by another client or with the wrong verifier, issuing nothing', async () => {
    const memory = new MemoryStore();
    const ctx = context(memory);
    for (const wrong of [{ clientId: 'https://other.example/client.json' }, { verifier: pkcePair().verifier }]) {
      const presented = await storeCode(memory);
      let issued = 0;
      const count = async () => ({ issuedFrom: { accessToken: String(++issued) } });
      await rejectsWith(redeemCode(ctx, { ...presented, ...wrong }, count), 'invalid_grant', 'clientId' in wrong ? 'client_mismatch' : 'verifier_mismatch');
      await rejectsWith(redeemCode(ctx, presented, count), 'invalid_grant', 'code_replay');
      assert.equal(issued, 0);
    }
    await memory.close();
  });
});

describe('redeemCode: storage that hangs leaves the code for the retry', () => {
  it('a read that gets no answer changes nothing', async () => {
    const memory = new MemoryStore();
    const store = new StallingStore(memory);
    const ctx = context(store);
    const presented = await storeCode(memory);
    store.stallFrom('get');
    await assert.rejects(redeemCode(ctx, presented, accessOnly(store)), StorageUnavailableError);
    await store.thaw();
    const retry = await redeemCode(ctx, presented, accessOnly(store));
    assert.ok(await accessRecord(memory, retry.tokens.accessToken));
    await memory.close();
  });

  it('a swap that gets no answer, yet lands later, is undone behind it: the retry works and the lost attempt\'s token is gone', async () => {
    const memory = new MemoryStore();
    const store = new StallingStore(memory);
    const ctx = context(store);
    const presented = await storeCode(memory);
    let lost: string | undefined;
    store.stallFrom('compareAndSet');
    await assert.rejects(
      redeemCode(ctx, presented, async (issued) => {
        const tokens = await accessOnly(store)(issued);
        lost = tokens.accessToken;
        return tokens;
      }),
      StorageUnavailableError,
    );
    await store.thaw();
    assert.ok(lost);
    assert.equal(await accessRecord(memory, lost), undefined, 'the token nobody received is deleted');
    const retry = await redeemCode(ctx, presented, accessOnly(store));
    assert.ok(await accessRecord(memory, retry.tokens.accessToken));
    // And the code is now spent for good.
    await rejectsWith(redeemCode(ctx, presented, accessOnly(store)), 'invalid_grant', 'code_replay');
    await memory.close();
  });
});
