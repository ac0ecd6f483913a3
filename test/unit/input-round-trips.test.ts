import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerContext } from '@modelcontextprotocol/server';
import { argumentsDigest } from '../../lib/input/arguments-digest.js';
import type { InputAsk } from '../../lib/input/input-requests.js';
import { RequestStateSealer, type StateBinding } from '../../lib/input/request-state.js';
import { UsedStates } from '../../lib/input/used-states.js';
import { ProtocolError } from '@modelcontextprotocol/server';
import { giveBackIfBusy, inputRequiredResult, resumeRound, type RoundTripStates } from '../../lib/mcp/round-trips.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';

const ASK: InputAsk = {
  requests: {
    door: { method: 'elicitation/create', params: { message: 'Open?', requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } } },
    dirs: { method: 'roots/list', params: {} },
  },
  state: { step: 1 },
};
const YES = { action: 'accept', content: { confirm: true } };
const ROOTS = { roots: [{ uri: 'file:///work' }] };

function binding(args: Record<string, unknown>): StateBinding {
  return { endpoint: '/tools', target: 'tool:open_door', caller: 'alice', arguments: argumentsDigest(args) };
}

function statesOn(store = new MemoryStore()): RoundTripStates {
  return { sealer: new RequestStateSealer('a test key that is long enough to be a key', 60_000), used: new UsedStates(store) };
}

/** The part of a handler's context the resumption reads: the retry's state and answers, as the SDK lifts them. */
function retry(requestState: string | undefined, inputResponses?: Record<string, unknown>): ServerContext {
  return { mcpReq: { requestState: () => requestState, ...(inputResponses !== undefined ? { inputResponses } : {}) } } as unknown as ServerContext;
}

/** The state a first round that asked would have handed the client. */
function sealedFor(states: RoundTripStates, args: Record<string, unknown>): string {
  return inputRequiredResult(ASK, 1, states, binding(args))['requestState'] as string;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: number; message: string; data?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; message: string; data?: Record<string, unknown> };
  }
  assert.fail('expected a refusal');
}

describe('resumeRound', () => {
  it('hands the flow the answers, its state and the round, once every question has a fitting answer', async () => {
    const states = statesOn();
    const resumed = await resumeRound(retry(sealedFor(states, { door: 'garage' }), { door: YES, dirs: ROOTS, unrelated: { roots: [] } }), states, binding({ door: 'garage' }));
    assert.ok('input' in resumed);
    assert.deepEqual(resumed.input, { round: 1, inputResponses: { door: YES, dirs: ROOTS }, state: { step: 1 } });
  });

  it('refuses a state sealed for other arguments with -32602 (item 7)', async () => {
    const states = statesOn();
    const state = sealedFor(states, { x: 1 });
    const refused = await refusal(resumeRound(retry(state, { door: YES, dirs: ROOTS }), states, binding({ x: 999 })));
    assert.equal(refused.code, -32602);
    assert.match(refused.message, /belongs to a call with other arguments/);
    // Not used up by the refusal: the honest retry still works.
    assert.ok('input' in (await resumeRound(retry(state, { door: YES, dirs: ROOTS }), states, binding({ x: 1 }))));
  });

  it('takes each state once: a replay, on this instance or another sharing the storage, is refused with -32602 (item 8)', async () => {
    const store = new MemoryStore();
    const [here, there] = [statesOn(store), statesOn(store)];
    const state = sealedFor(here, {});
    const attempts = await Promise.allSettled([here, there, here].map((states) => resumeRound(retry(state, { door: YES, dirs: ROOTS }), states, binding({}))));
    assert.deepEqual(attempts.map((attempt) => attempt.status).sort(), ['fulfilled', 'rejected', 'rejected']);
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') assert.match(String(attempt.reason.message), /has been used already/);
    }
    await store.close();
  });

  it('gives a used state back when the round it started could not run (the server was busy), and only then', async () => {
    const states = statesOn();
    const state = sealedFor(states, {});
    const resumed = await resumeRound(retry(state, { door: YES, dirs: ROOTS }), states, binding({}));
    assert.ok('input' in resumed && resumed.release);
    const busy = new ProtocolError(-32000, 'Server busy');
    await assert.rejects(Promise.reject(busy).catch(giveBackIfBusy(resumed.release)), busy);
    // The client's "retry shortly" works with the same state, once.
    const again = await resumeRound(retry(state, { door: YES, dirs: ROOTS }), states, binding({}));
    await assert.rejects(Promise.reject(new Error('flow failed')).catch(giveBackIfBusy('release' in again ? again.release : undefined)), /flow failed/);
    assert.match((await refusal(resumeRound(retry(state, { door: YES, dirs: ROOTS }), states, binding({})))).message, /used already/);
  });

  it('uses a state up when the missing questions are asked again, too', async () => {
    const states = statesOn();
    const state = sealedFor(states, {});
    const partial = await resumeRound(retry(state, { door: YES }), states, binding({}));
    assert.ok('reask' in partial);
    assert.deepEqual(Object.keys(partial.reask.requests), ['dirs']);
    assert.match((await refusal(resumeRound(retry(state, { door: YES, dirs: ROOTS }), states, binding({})))).message, /used already/);
  });

  it('refuses an answer that does not fit its question with -32602 naming the key, and keeps the state for the fixed retry (item 9)', async () => {
    const states = statesOn();
    const state = sealedFor(states, {});
    for (const door of [{ action: 'bogus', content: { confirm: true } }, { action: 'accept', content: { confirm: true, extra: '<img>' } }, { action: 'accept', content: { confirm: 'yes' } }]) {
      const refused = await refusal(resumeRound(retry(state, { door, dirs: ROOTS }), states, binding({})));
      assert.equal(refused.code, -32602);
      assert.match(refused.message, /^Invalid inputResponses\.door: /);
      assert.equal(refused.data?.['key'], 'door');
    }
    const badRoots = await refusal(resumeRound(retry(state, { door: YES, dirs: { roots: [{ uri: 'http://x' }] } }), states, binding({})));
    assert.match(badRoots.message, /^Invalid inputResponses\.dirs: roots\[0\]\.uri must be a file:\/\/ URI/);
    assert.ok('input' in (await resumeRound(retry(state, { door: YES, dirs: ROOTS }), states, binding({}))));
  });

  it('never hands answers sent without a state to the flow as inputResponses: they are unaskedResponses of round 0 (item 10)', async () => {
    const states = statesOn();
    assert.deepEqual(await resumeRound(retry(undefined, { door: YES }), states, binding({})), { input: { round: 0, unaskedResponses: { door: YES } } });
    assert.deepEqual(await resumeRound(retry(undefined, {}), states, binding({})), {});
    assert.deepEqual(await resumeRound(retry(undefined), states, binding({})), {});
    const refused = await refusal(resumeRound(retry(undefined, { door: { hello: 1 } }), states, binding({})));
    assert.equal(refused.code, -32602);
    assert.match(refused.message, /^Invalid inputResponses\.door: is not an answer/);
  });

  it('refuses the retry with -32000 and keeps the state when the storage cannot say whether it was used', async () => {
    const store = new MemoryStore();
    const states = statesOn(store);
    const state = sealedFor(states, {});
    await store.close();
    const refused = await refusal(resumeRound(retry(state, { door: YES, dirs: ROOTS }), states, binding({})));
    assert.equal(refused.code, -32000);
    assert.match(refused.message, /retry shortly with the same requestState/);
  });
});
