import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { RefreshServiceOptions } from '../../lib/auth/refresh/refresh-service.js';
import { sha256 } from '../../lib/auth/secrets.js';
import { UpstreamError } from '../../lib/auth/upstream/upstream-error.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import type { UpstreamRefreshResult } from '../../lib/auth/upstream/upstream-refresh.js';
import { StorageUnavailableError, type Store, type StoreKey } from '../../lib/storage/store.js';
import { outcomes, refreshHarness, refusal, sessionGrant } from './refresh-fixtures.js';

/**
 * The refresh service when things go wrong: provider outages and refusals, storage failing half
 * way, two requests for one token, workers that stall past their claim deadline.
 */

const KEY = Buffer.alloc(32, 9);
const NAMESPACE = 'ns-refresh-resilience';
const GRANT = sessionGrant(['openid', 'groups', 'offline_access'], { subject: 'alice', groups: ['mcp-users'] });

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

type Operation = 'put' | 'get' | 'compareAndSet' | 'delete';
interface StoreFault {
  readonly operation: Operation;
  readonly kind: string;
  /**
   * Throw StorageUnavailableError; do the operation and then throw it (`lost-reply`: applied, but the
   * reply lost in a failover); or wait for this promise before doing the operation.
   */
  readonly effect: 'fail' | 'lost-reply' | Promise<void>;
  /** Called when the fault fires, before it fails or waits. */
  readonly reached?: () => void;
}

/**
 * MemoryStore with faults on chosen operations of chosen record kinds (each fires once), counting
 * the reads of each kind so a test can see a worker polling.
 */
function faultyStore(inner: MemoryStore): { store: Store; faults: StoreFault[]; reads: Map<string, number> } {
  const faults: StoreFault[] = [];
  const reads = new Map<string, number>();
  const wrapped = new Set<string | symbol>(['put', 'putIfAbsent', 'get', 'take', 'compareAndSet', 'delete']);
  const store = new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || !wrapped.has(property)) return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        const key = args[0] as StoreKey;
        if (property === 'get') reads.set(key.kind, (reads.get(key.kind) ?? 0) + 1);
        const index = faults.findIndex((fault) => fault.operation === property && fault.kind === key.kind);
        if (index >= 0) {
          const [fault] = faults.splice(index, 1);
          fault!.reached?.();
          if (fault!.effect === 'fail') throw new StorageUnavailableError('reconnecting');
          if (fault!.effect === 'lost-reply') {
            await (value as (...parameters: unknown[]) => Promise<unknown>).apply(target, args);
            throw new StorageUnavailableError('reconnecting');
          }
          await fault!.effect;
        }
        return (value as (...parameters: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as unknown as Store;
  return { store, faults, reads };
}

function harness(overrides: Partial<RefreshServiceOptions> = {}) {
  let faults: StoreFault[] = [];
  let reads = new Map<string, number>();
  const base = refreshHarness({
    namespace: NAMESPACE,
    key: KEY,
    wrapStore: (memory) => {
      const faulty = faultyStore(memory);
      faults = faulty.faults;
      reads = faulty.reads;
      return faulty.store;
    },
    overrides,
  });
  /** The stored session record of a refresh token (found through its index record). */
  const sessionOf = async (refreshToken: string) => {
    const index = JSON.parse((await base.memory.get({ namespace: NAMESPACE, kind: 'refresh-token', id: sha256(refreshToken) }))!) as { session: string };
    const text = await base.memory.get({ namespace: NAMESPACE, kind: 'refresh-session', id: index.session });
    return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown> & { claim?: { deadline: number; pending?: string } });
  };
  /** Resolves once the store has served `count` more reads of `kind` than when called. */
  const readsMore = async (kind: string, count: number) => {
    const target = (reads.get(kind) ?? 0) + count;
    await until(() => (reads.get(kind) ?? 0) >= target, `${count} more reads of ${kind}`);
  };
  return { ...base, faults, sessionOf, readsMore };
}


/** Resolves once `condition` holds, checking between turns of the event loop (no timing bound). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let spins = 0; !condition(); spins += 1) {
    if (spins > 20_000) throw new Error(`never happened: ${what}`);
    await delay(1);
  }
}

/** Resolves once the scripted provider has been called `count` times. */
function providerCalled(upstream: { calls: readonly unknown[] }, count: number): Promise<void> {
  return until(() => upstream.calls.length >= count, `provider call ${count}`);
}

describe('refresh service: provider failures', () => {
  it('answers a provider outage with 503 and its Retry-After, restores the claim without extending expiry', async () => {
    const { service, upstream, events, logs, sessionOf } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    const before = await sessionOf(started.refreshToken!);
    upstream.respond = async () => {
      throw new UpstreamError('unavailable', 'identity provider answered HTTP 429', { retryAfterSeconds: 7 });
    };
    const failure = await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'temporarily_unavailable', 503);
    assert.equal(failure.headers['retry-after'], '7');
    assert.deepEqual(await sessionOf(started.refreshToken!), before, 'the record is exactly as before the claim');
    assert.ok(logs.some((line) => line.startsWith('warn:') && line.includes('HTTP 429')));

    upstream.respond = upstream.answer;
    const refreshed = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    assert.ok(refreshed.accessToken);
    assert.deepEqual(upstream.calls.map((call) => call.token), ['upstream-0', 'upstream-0']);
    assert.deepEqual(outcomes(events), ['transient', 'success']);
  });

  it('does not pass on a Retry-After it cannot vouch for', async () => {
    const { service, upstream } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    upstream.respond = async () => {
      throw new UpstreamError('unavailable', 'timeout', { retryAfterSeconds: 86_400 });
    };
    const failure = await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'temporarily_unavailable', 503);
    assert.equal(failure.headers['retry-after'], '5');
  });

  it('treats invalid_client from the provider as configuration: 503, session kept, logged at error level', async () => {
    const { service, upstream, events, logs } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    upstream.respond = async () => {
      throw new UpstreamError('provider_config', 'token endpoint refused the bridge\'s client (invalid_client)');
    };
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'temporarily_unavailable', 503);
    assert.ok(logs.some((line) => line.startsWith('error:') && line.includes('provider_config')));
    assert.equal(events[0]?.outcome, 'provider_config');
    upstream.respond = upstream.answer;
    await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
  });

  it('revokes the session when the provider refuses it definitively', async () => {
    const { service, upstream, events } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    upstream.respond = async () => {
      throw new UpstreamError('provider_error', 'identity provider refused the refresh (invalid_grant)', { providerError: 'invalid_grant' });
    };
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'invalid_grant');
    upstream.respond = upstream.answer;
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'invalid_grant');
    assert.equal(upstream.calls.length, 1);
    assert.deepEqual(events.map((event) => [event.outcome, event.reason]), [['revoked', 'upstream_provider_error'], ['unknown', 'session_ended']]);
  });

  it('revokes when the provider confirms another subject or no identity at all', async () => {
    const { service, upstream } = harness();
    const first = await service.startSession(GRANT, 'upstream-0');
    upstream.respond = async () => ({ identity: { subject: 'mallory', groups: ['mcp-users'] } });
    await refusal(service.refresh({ refreshToken: first.refreshToken!, clientId: GRANT.clientId }), 'invalid_grant');
    const second = await service.startSession(GRANT, 'upstream-0');
    upstream.respond = async () => ({ identity: { subject: 'alice', groups: 'mcp-users' } }) as unknown as UpstreamRefreshResult;
    await refusal(service.refresh({ refreshToken: second.refreshToken!, clientId: GRANT.clientId }), 'invalid_grant');
  });

  it('keeps the session when the refresher fails in a way it did not classify', async () => {
    const { service, upstream, logs } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    upstream.respond = async () => {
      throw new TypeError('something unexpected');
    };
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'temporarily_unavailable', 503);
    assert.ok(logs.some((line) => line.startsWith('error:')));
    upstream.respond = upstream.answer;
    await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
  });
});

/**
 * Starts a session and refreshes it once while storage fails after the provider answered: claim and
 * pending result are stored, then the commit fails, and so does the first hand-back of the claim.
 * Returns the request, to retry.
 */
async function refreshCommitAndHandBackFail(service: ReturnType<typeof harness>['service'], faults: StoreFault[]) {
  const started = await service.startSession(GRANT, 'upstream-0');
  const pass = Promise.resolve();
  faults.push(
    { operation: 'compareAndSet', kind: 'refresh-session', effect: pass },
    { operation: 'compareAndSet', kind: 'refresh-session', effect: pass },
    { operation: 'compareAndSet', kind: 'refresh-session', effect: 'fail' },
    { operation: 'compareAndSet', kind: 'refresh-session', effect: 'fail' },
  );
  const request = { refreshToken: started.refreshToken!, clientId: GRANT.clientId };
  await refusal(service.refresh(request), 'temporarily_unavailable', 503);
  return request;
}

describe('refresh service: storage failures', () => {
  it('keeps a verified provider result pending when a write fails, and commits it on retry without asking again', async () => {
    const { service, upstream, faults, events, sessionOf } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    faults.push({ operation: 'put', kind: 'access', effect: 'fail' });
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'temporarily_unavailable', 503);
    const held = await sessionOf(started.refreshToken!);
    assert.ok(held?.claim?.pending, 'the verified result is kept, sealed');
    assert.ok(!held.claim.pending.includes('upstream-1'));

    const refreshed = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    assert.deepEqual(upstream.calls.map((call) => call.token), ['upstream-0'], 'the provider was asked once');
    await service.refresh({ refreshToken: refreshed.refreshToken, clientId: GRANT.clientId });
    assert.deepEqual(upstream.calls.map((call) => call.token), ['upstream-0', 'upstream-1'], 'the pending result\'s rotated credential was kept');
    assert.deepEqual(events.map((event) => [event.outcome, event.reason]), [['transient', 'storage_unavailable'], ['success', undefined], ['success', undefined]]);
  });

  it('recovers a pending result after the claim deadline when even the release could not be written', async () => {
    // A worker that cannot hand its claim back later either (its process died): only the deadline helps.
    const { service, upstream, faults, advance } = harness({ pollTimeoutMs: 50, handBackRetryMs: 3_600_000 });
    const request = await refreshCommitAndHandBackFail(service, faults);
    // Until the deadline the claim looks owned: a retry waits, then gets 503, and nothing is revoked.
    await refusal(service.refresh(request), 'temporarily_unavailable', 503);
    advance(60_000);
    const refreshed = await service.refresh(request);
    assert.ok(refreshed.refreshToken);
    assert.deepEqual(upstream.calls.map((call) => call.token), ['upstream-0'], 'the provider was asked once');
  });

  it('hands the claim back as soon as storage answers again: the next refresh commits without waiting for the deadline', async () => {
    const { service, upstream, faults, sessionOf } = harness({ handBackRetryMs: 5 });
    const request = await refreshCommitAndHandBackFail(service, faults);
    // The clock stands still, so the deadline cannot free the claim: only the worker's own retry can.
    const refreshed = await service.refresh(request);
    assert.ok(refreshed.refreshToken);
    assert.deepEqual(upstream.calls.map((call) => call.token), ['upstream-0'], 'the pending result was committed: the provider was asked once');
    assert.equal((await sessionOf(refreshed.refreshToken))?.claim, undefined);
  });

  it('gives back a claim whose write went through although its reply was lost', async () => {
    const { service, upstream, faults, events } = harness({ pollTimeoutMs: 50 });
    const started = await service.startSession(GRANT, 'upstream-0');
    faults.push({ operation: 'compareAndSet', kind: 'refresh-session', effect: 'lost-reply' });
    const request = { refreshToken: started.refreshToken!, clientId: GRANT.clientId };
    await refusal(service.refresh(request), 'temporarily_unavailable', 503);
    // Without the hand-back the stored claim would hold every refresh for 60 s: this one would poll and get 503.
    const refreshed = await service.refresh(request);
    assert.ok(refreshed.refreshToken);
    assert.equal(upstream.calls.length, 1);
    assert.deepEqual(events.map((event) => [event.outcome, event.reason]), [['transient', 'storage_unavailable'], ['success', undefined]]);
  });

  it('asks the provider again when the pending result itself could not be stored', async () => {
    const { service, upstream, faults } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    const pass = deferred<void>();
    pass.resolve();
    faults.push(
      { operation: 'compareAndSet', kind: 'refresh-session', effect: pass.promise },
      { operation: 'compareAndSet', kind: 'refresh-session', effect: 'fail' },
    );
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'temporarily_unavailable', 503);
    await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    assert.deepEqual(upstream.calls.map((call) => call.token), ['upstream-0', 'upstream-0']);
  });

  it('answers 503 when storage is unreachable before anything happened', async () => {
    const { service, faults, upstream } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    faults.push({ operation: 'get', kind: 'refresh-token', effect: 'fail' });
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'temporarily_unavailable', 503);
    assert.equal(upstream.calls.length, 0);
    await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
  });
});

/** Starts a session and its first refresh, which waits at the provider until `release()`. */
async function firstRefreshHeldAtProvider({ service, upstream }: Pick<ReturnType<typeof harness>, 'service' | 'upstream'>) {
  const started = await service.startSession(GRANT, 'upstream-0');
  const gate = deferred<void>();
  upstream.respond = async (token, subject) => {
    await gate.promise;
    return upstream.answer(token, subject);
  };
  const request = { refreshToken: started.refreshToken!, clientId: GRANT.clientId };
  const first = service.refresh(request);
  await providerCalled(upstream, 1);
  return { request, first, release: () => gate.resolve() };
}

describe('refresh service: concurrency and claims', () => {
  it('lets two concurrent refreshes of one token share one provider call and one pair', async () => {
    const { service, upstream, events, readsMore } = harness();
    const { request, first, release } = await firstRefreshHeldAtProvider({ service, upstream });
    // The second request is waiting on the first's claim once it has read the session twice.
    const polled = readsMore('refresh-session', 2);
    const second = service.refresh(request);
    await polled;
    release();
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual(b, a);
    assert.equal(upstream.calls.length, 1);
    assert.deepEqual(outcomes(events).sort(), ['grace_reuse', 'success']);
  });

  it('answers a waiter 503 after the poll timeout, without revoking; the first request still completes', async () => {
    const { service, upstream, events, readsMore } = harness({ pollTimeoutMs: 100 });
    const { request, first, release } = await firstRefreshHeldAtProvider({ service, upstream });
    // It polled (read the session again and again) before giving up.
    const polled = readsMore('refresh-session', 3);
    const failure = await refusal(service.refresh(request), 'temporarily_unavailable', 503);
    await polled;
    assert.equal(failure.headers['retry-after'], '1');
    release();
    const result = await first;
    await service.refresh({ refreshToken: result.refreshToken, clientId: GRANT.clientId });
    assert.deepEqual(outcomes(events), ['transient', 'success', 'success']);
  });

  it('recovers a claim whose worker stalled past the deadline; the stale worker cannot commit', async () => {
    const { service, upstream, advance, logs } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    const stalled = deferred<void>();
    upstream.respond = async (token, subject) => {
      if (upstream.calls.length === 1) await stalled.promise;
      return { identity: { subject, groups: ['mcp-users'] }, upstreamRefreshToken: `from-call-${upstream.calls.length}` };
    };
    const request = { refreshToken: started.refreshToken!, clientId: GRANT.clientId };
    const stale = service.refresh(request);
    await providerCalled(upstream, 1);
    advance(60_000);
    const recovered = await service.refresh(request);
    assert.ok(logs.some((line) => line.startsWith('warn:') && line.includes('took over')));
    stalled.resolve();
    // The stale worker's commit fails; what it returns is the committed rotation's response.
    assert.deepEqual(await stale, recovered);
    await service.refresh({ refreshToken: recovered.refreshToken, clientId: GRANT.clientId });
    assert.deepEqual(upstream.calls.map((call) => call.token), ['upstream-0', 'upstream-0', 'from-call-2'], 'the committed credential is the recovering worker\'s');
  });

  it('lets a recovering worker commit a stalled worker\'s pending result; the stale one cannot commit afterwards', async () => {
    const { service, upstream, faults, advance } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    const stalled = deferred<void>();
    const reached = deferred<void>();
    faults.push({ operation: 'put', kind: 'access', effect: stalled.promise, reached: () => reached.resolve() });
    const request = { refreshToken: started.refreshToken!, clientId: GRANT.clientId };
    const stale = service.refresh(request);
    // The worker has its pending result stored and now hangs writing the access token.
    await reached.promise;
    advance(60_000);
    const recovered = await service.refresh(request);
    assert.equal(upstream.calls.length, 1, 'the pending result was committed without a second provider call');
    stalled.resolve();
    assert.deepEqual(await stale, recovered);
    const next = await service.refresh({ refreshToken: recovered.refreshToken, clientId: GRANT.clientId });
    assert.ok(next.accessToken);
    assert.deepEqual(upstream.calls.map((call) => call.token), ['upstream-0', 'upstream-1']);
  });
});
