import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from '../../lib/core/logger.js';
import type { InputRequest } from '../../lib/input/input-requests.js';
import { clientAnswersIn, LegacyInputRelay } from '../../lib/input/legacy-input-relay.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { recordingLogger } from '../support/recording-logger.js';

const REQUESTS: Record<string, InputRequest> = {
  city: { method: 'elicitation/create', params: { message: 'Which city?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } } } } },
  folders: { method: 'roots/list', params: {} },
};
const LONG_MS = 60_000;

/** What a relay sent on "the stream": the JSON-RPC requests, in order. */
function recordingStream() {
  const sent: Array<{ jsonrpc: string; id: string; method: string; params: unknown }> = [];
  return { sent, send: async (message: object) => void sent.push(message as (typeof sent)[number]) };
}

/** Lets queued microtasks (the MemoryStore's deliveries) run. */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('LegacyInputRelay', () => {
  let store: MemoryStore;
  let relays: LegacyInputRelay[];
  const relay = (options: { store?: MemoryStore; logger?: Logger } = { store }) => {
    const made = new LegacyInputRelay({ logger: options.logger ?? recordingLogger(), ...(options.store ? { store: options.store } : {}) });
    relays.push(made);
    return made;
  };

  beforeEach(() => {
    store = new MemoryStore();
    relays = [];
  });
  afterEach(async () => {
    for (const made of relays) made.stop();
    await store.close();
  });

  it('sends each request as a JSON-RPC request with an id naming the asking instance, and resolves with the answers keyed as asked', async () => {
    const asking = relay();
    const stream = recordingStream();
    const outcome = asking.ask(REQUESTS, 'alice', stream.send, new AbortController().signal, LONG_MS);
    assert.deepEqual(
      stream.sent.map(({ jsonrpc, method, params }) => ({ jsonrpc, method, params })),
      Object.values(REQUESTS).map(({ method, params }) => ({ jsonrpc: '2.0', method, params })),
    );
    const [first, second] = stream.sent as [(typeof stream.sent)[number], (typeof stream.sent)[number]];
    assert.match(first.id, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.equal(first.id.split('.')[0], second.id.split('.')[0]);
    assert.notEqual(first.id, second.id);
    assert.equal(asking.pending, 2);
    assert.equal(await asking.answer({ id: second.id, result: { roots: [] } }, 'alice'), 'delivered');
    assert.equal(await asking.answer({ id: first.id, result: { action: 'accept', content: { city: 'Oslo' } } }, 'alice'), 'delivered');
    assert.deepEqual(await outcome, { answers: { city: { action: 'accept', content: { city: 'Oslo' } }, folders: { roots: [] } } });
    assert.equal(asking.pending, 0);
  });

  it('lets at most maxAsking calls wait for answers at once, sending nothing for the next, and takes one again when a call is answered', async () => {
    const asking = new LegacyInputRelay({ logger: recordingLogger(), maxAsking: 1 });
    relays.push(asking);
    const first = recordingStream();
    const waiting = asking.ask({ city: REQUESTS['city']! }, 'alice', first.send, new AbortController().signal, LONG_MS);
    const refused = recordingStream();
    assert.deepEqual(await asking.ask({ city: REQUESTS['city']! }, 'bob', refused.send, new AbortController().signal, LONG_MS), { full: 1 });
    assert.equal(refused.sent.length, 0);
    await asking.answer({ id: first.sent[0]!.id, result: { action: 'decline' } }, 'alice');
    assert.deepEqual(await waiting, { answers: { city: { action: 'decline' } } });
    const again = recordingStream();
    const next = asking.ask({ city: REQUESTS['city']! }, 'bob', again.send, new AbortController().signal, LONG_MS);
    assert.equal(again.sent.length, 1);
    await asking.answer({ id: again.sent[0]!.id, result: { action: 'cancel' } }, 'bob');
    assert.deepEqual(await next, { answers: { city: { action: 'cancel' } } });
  });

  it('delivers an answer that reached the other instance through the shared store', async () => {
    const asking = relay();
    const other = relay();
    const stream = recordingStream();
    const outcome = asking.ask({ city: REQUESTS['city']! }, 'alice', stream.send, new AbortController().signal, LONG_MS);
    assert.equal(await other.answer({ id: stream.sent[0]!.id, result: { action: 'decline' } }, 'alice'), 'forwarded');
    assert.deepEqual(await outcome, { answers: { city: { action: 'decline' } } });
    assert.equal(other.pending, 0);
  });

  it('turns a JSON-RPC error answer into { error } with its code and message', async () => {
    const asking = relay();
    const stream = recordingStream();
    const outcome = asking.ask({ city: REQUESTS['city']! }, 'alice', stream.send, new AbortController().signal, LONG_MS);
    await asking.answer({ id: stream.sent[0]!.id, error: { code: -32601, message: 'Method not found' } }, 'alice');
    assert.deepEqual(await outcome, { answers: { city: { error: { code: -32601, message: 'Method not found' } } } });
  });

  it('refuses an answer from another caller, here and through the store, and keeps waiting for the right one', async () => {
    const logger = recordingLogger();
    const asking = relay({ store, logger });
    const other = relay();
    const stream = recordingStream();
    let ended = false;
    const outcome = asking.ask({ city: REQUESTS['city']! }, 'alice', stream.send, new AbortController().signal, LONG_MS).finally(() => (ended = true));
    const id = stream.sent[0]!.id;
    assert.equal(await asking.answer({ id, result: { action: 'accept', content: { city: 'Evil' } } }, 'mallory'), 'unknown');
    assert.equal(await other.answer({ id, result: { action: 'accept', content: { city: 'Evil' } } }, 'mallory'), 'forwarded');
    await settled();
    assert.equal(ended, false);
    assert.equal(asking.pending, 1);
    assert.equal(logger.lines.filter((line) => line.startsWith('warn ')).length, 2);
    assert.ok(logger.lines.every((line) => !line.includes('Evil')), 'answers are never logged');
    assert.equal(await other.answer({ id, result: { action: 'accept', content: { city: 'Oslo' } } }, 'alice'), 'forwarded');
    assert.deepEqual(await outcome, { answers: { city: { action: 'accept', content: { city: 'Oslo' } } } });
  });

  it('takes each answer once: a repeated, late or made-up answer is unknown', async () => {
    const asking = relay();
    const stream = recordingStream();
    const outcome = asking.ask(REQUESTS, 'alice', stream.send, new AbortController().signal, LONG_MS);
    const [first, second] = stream.sent as [(typeof stream.sent)[number], (typeof stream.sent)[number]];
    assert.equal(await asking.answer({ id: first.id, result: { action: 'cancel' } }, 'alice'), 'delivered');
    assert.equal(await asking.answer({ id: first.id, result: { action: 'accept', content: {} } }, 'alice'), 'unknown');
    assert.equal(await asking.answer({ id: `${first.id.split('.')[0]}.made-up`, result: {} }, 'alice'), 'unknown');
    assert.equal(await asking.answer({ id: 'no-dot', result: {} }, 'alice'), 'unknown');
    assert.equal(await asking.answer({ id: '.leading-dot', result: {} }, 'alice'), 'unknown');
    await asking.answer({ id: second.id, result: { roots: [] } }, 'alice');
    assert.deepEqual((await outcome as { answers: Record<string, unknown> }).answers['city'], { action: 'cancel' });
    assert.equal(await asking.answer({ id: second.id, result: { roots: [] } }, 'alice'), 'unknown');
  });

  it('cannot forward without a store: an answer for another instance is unknown', async () => {
    const alone = relay({});
    assert.equal(await alone.answer({ id: 'someone-else.abc', result: {} }, 'alice'), 'unknown');
  });

  it('ends with timeout when the answers do not all come within the time limit, and forgets the questions', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const asking = relay();
    const stream = recordingStream();
    const outcome = asking.ask(REQUESTS, 'alice', stream.send, new AbortController().signal, 2_000);
    await asking.answer({ id: stream.sent[0]!.id, result: { action: 'accept', content: { city: 'Oslo' } } }, 'alice');
    t.mock.timers.tick(2_000);
    assert.deepEqual(await outcome, { ended: 'timeout' });
    assert.equal(asking.pending, 0);
    assert.equal(await asking.answer({ id: stream.sent[1]!.id, result: { roots: [] } }, 'alice'), 'unknown');
  });

  it('ends with cancelled when the client hangs up, or already had', async () => {
    const asking = relay();
    const stream = recordingStream();
    const controller = new AbortController();
    const outcome = asking.ask(REQUESTS, 'alice', stream.send, controller.signal, LONG_MS);
    controller.abort();
    assert.deepEqual(await outcome, { ended: 'cancelled' });
    assert.equal(asking.pending, 0);
    const late = recordingStream();
    assert.deepEqual(await asking.ask(REQUESTS, 'alice', late.send, controller.signal, LONG_MS), { ended: 'cancelled' });
    assert.equal(late.sent.length, 0, 'nothing is asked on a stream that is gone');
  });

  it('ends with cancelled when a request cannot be sent on the stream', async () => {
    const asking = relay();
    const outcome = asking.ask(REQUESTS, 'alice', () => Promise.reject(new Error('stream closed')), new AbortController().signal, LONG_MS);
    assert.deepEqual(await outcome, { ended: 'cancelled' });
    assert.equal(asking.pending, 0);
  });

  it('ends every waiting round with stopped when the endpoint stops, asks nothing after, and no longer hears forwarded answers', async () => {
    const asking = relay();
    const other = relay();
    const stream = recordingStream();
    const first = asking.ask({ city: REQUESTS['city']! }, 'alice', stream.send, new AbortController().signal, LONG_MS);
    const second = asking.ask({ folders: REQUESTS['folders']! }, 'bob', stream.send, new AbortController().signal, LONG_MS);
    asking.stop();
    assert.deepEqual(await first, { ended: 'stopped' });
    assert.deepEqual(await second, { ended: 'stopped' });
    assert.equal(asking.pending, 0);
    const late = recordingStream();
    assert.deepEqual(await asking.ask(REQUESTS, 'alice', late.send, new AbortController().signal, LONG_MS), { ended: 'stopped' });
    assert.equal(late.sent.length, 0);
    // Forwarded after the stop: nobody listens on the stopped instance's channel any more.
    assert.equal(await other.answer({ id: stream.sent[0]!.id, result: {} }, 'alice'), 'forwarded');
    await settled();
  });
});

describe('clientAnswersIn', () => {
  it('reads one JSON-RPC response, or a batch of them, keeping only string ids', () => {
    assert.deepEqual(clientAnswersIn({ jsonrpc: '2.0', id: 'a.b', result: { action: 'accept' } }), [{ jsonrpc: '2.0', id: 'a.b', result: { action: 'accept' } }]);
    assert.deepEqual(clientAnswersIn([{ jsonrpc: '2.0', id: 'a.b', result: {} }, { jsonrpc: '2.0', id: 7, result: {} }, { jsonrpc: '2.0', id: 'a.c', error: { code: -1, message: 'x' } }]), [
      { jsonrpc: '2.0', id: 'a.b', result: {} },
      { jsonrpc: '2.0', id: 'a.c', error: { code: -1, message: 'x' } },
    ]);
    assert.deepEqual(clientAnswersIn({ jsonrpc: '2.0', id: 7, result: {} }), []);
  });

  it('leaves requests, notifications, mixed batches and anything else to the MCP handler', () => {
    for (const body of [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      [{ jsonrpc: '2.0', id: 'a.b', result: {} }, { jsonrpc: '2.0', id: 2, method: 'ping' }],
      [],
      { jsonrpc: '2.0', id: 'a.b' },
      'text',
      null,
    ]) {
      assert.equal(clientAnswersIn(body), undefined, JSON.stringify(body));
    }
  });
});
