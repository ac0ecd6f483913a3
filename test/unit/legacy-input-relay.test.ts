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
    await settled();
    assert.deepEqual(
      stream.sent.map(({ jsonrpc, method, params }) => ({ jsonrpc, method, params })),
      Object.values(REQUESTS).map(({ method, params }) => ({ jsonrpc: '2.0', method, params })),
    );
    const [first, second] = stream.sent as [(typeof stream.sent)[number], (typeof stream.sent)[number]];
    assert.match(first.id, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.\d+$/);
    // Both name the asking instance and the round.
    assert.deepEqual(first.id.split('.').slice(0, 2), second.id.split('.').slice(0, 2));
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
    await settled();
    const refused = recordingStream();
    assert.deepEqual(await asking.ask({ city: REQUESTS['city']! }, 'bob', refused.send, new AbortController().signal, LONG_MS), { full: 1 });
    assert.equal(refused.sent.length, 0);
    await asking.answer({ id: first.sent[0]!.id, result: { action: 'decline' } }, 'alice');
    assert.deepEqual(await waiting, { answers: { city: { action: 'decline' } } });
    const again = recordingStream();
    const next = asking.ask({ city: REQUESTS['city']! }, 'bob', again.send, new AbortController().signal, LONG_MS);
    await settled();
    assert.equal(again.sent.length, 1);
    await asking.answer({ id: again.sent[0]!.id, result: { action: 'cancel' } }, 'bob');
    assert.deepEqual(await next, { answers: { city: { action: 'cancel' } } });
  });

  it('delivers an answer that reached the other instance through the shared store', async () => {
    const asking = relay();
    const other = relay();
    const stream = recordingStream();
    const outcome = asking.ask({ city: REQUESTS['city']! }, 'alice', stream.send, new AbortController().signal, LONG_MS);
    await settled();
    assert.equal(await other.answer({ id: stream.sent[0]!.id, result: { action: 'decline' } }, 'alice'), 'forwarded');
    assert.deepEqual(await outcome, { answers: { city: { action: 'decline' } } });
    assert.equal(other.pending, 0);
  });

  it('turns a JSON-RPC error answer into { error } with its code and message', async () => {
    const asking = relay();
    const stream = recordingStream();
    const outcome = asking.ask({ city: REQUESTS['city']! }, 'alice', stream.send, new AbortController().signal, LONG_MS);
    await settled();
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
    await settled();
    const id = stream.sent[0]!.id;
    assert.equal(await asking.answer({ id, result: { action: 'accept', content: { city: 'Evil' } } }, 'mallory'), 'unknown');
    // The other instance knows who asked from the round the asking one shared: it forwards nothing.
    assert.equal(await other.answer({ id, result: { action: 'accept', content: { city: 'Evil' } } }, 'mallory'), 'unknown');
    await settled();
    assert.equal(ended, false);
    assert.equal(asking.pending, 1);
    assert.equal(logger.lines.filter((line) => line.startsWith('warn ')).length, 1);
    assert.ok(logger.lines.every((line) => !line.includes('Evil')), 'answers are never logged');
    assert.equal(await other.answer({ id, result: { action: 'accept', content: { city: 'Oslo' } } }, 'alice'), 'forwarded');
    assert.deepEqual(await outcome, { answers: { city: { action: 'accept', content: { city: 'Oslo' } } } });
  });

  it('takes each answer once: a repeated, late or made-up answer is unknown', async () => {
    const asking = relay();
    const stream = recordingStream();
    const outcome = asking.ask(REQUESTS, 'alice', stream.send, new AbortController().signal, LONG_MS);
    await settled();
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
    assert.equal(await alone.answer({ id: 'someone-else.round.0', result: { roots: [] } }, 'alice'), 'unknown');
  });

  it('ends with timeout when the answers do not all come within the time limit, and forgets the questions', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const asking = relay();
    const stream = recordingStream();
    const outcome = asking.ask(REQUESTS, 'alice', stream.send, new AbortController().signal, 2_000);
    await settled();
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
    await settled();
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
    await settled();
    assert.deepEqual(await outcome, { ended: 'cancelled' });
    assert.equal(asking.pending, 0);
  });

  it('ends every waiting round with stopped when the endpoint stops, asks nothing after, and no longer hears forwarded answers', async () => {
    const asking = relay();
    const other = relay();
    const stream = recordingStream();
    const first = asking.ask({ city: REQUESTS['city']! }, 'alice', stream.send, new AbortController().signal, LONG_MS);
    await settled();
    const second = asking.ask({ folders: REQUESTS['folders']! }, 'bob', stream.send, new AbortController().signal, LONG_MS);
    await settled();
    asking.stop();
    assert.deepEqual(await first, { ended: 'stopped' });
    assert.deepEqual(await second, { ended: 'stopped' });
    assert.equal(asking.pending, 0);
    const late = recordingStream();
    assert.deepEqual(await asking.ask(REQUESTS, 'alice', late.send, new AbortController().signal, LONG_MS), { ended: 'stopped' });
    assert.equal(late.sent.length, 0);
    // The stopped rounds' questions are gone from the storage too: an answer reaching another instance is unknown there.
    assert.equal(await other.answer({ id: stream.sent[0]!.id, result: { action: 'decline' } }, 'alice'), 'unknown');
  });
});

describe('LegacyInputRelay: answers checked against what was asked', () => {
  let store: MemoryStore;
  let publishes: string[];
  let relays: LegacyInputRelay[];
  const relay = () => {
    const made = new LegacyInputRelay({ logger: recordingLogger(), store });
    relays.push(made);
    return made;
  };
  const CITY: InputRequest = { method: 'elicitation/create', params: { message: 'Which city?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };
  const MODEL: InputRequest = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 5 } };

  beforeEach(() => {
    store = new MemoryStore();
    publishes = [];
    const publish = store.publish.bind(store);
    store.publish = (channel, message) => {
      publishes.push(channel.id);
      return publish(channel, message);
    };
    relays = [];
  });
  afterEach(async () => {
    for (const made of relays) made.stop();
    await store.close();
  });

  /** Starts a call asking `requests` on `asking`, once its questions are out. */
  async function asked(asking: LegacyInputRelay, requests: Record<string, InputRequest>, owner = 'alice') {
    const stream = recordingStream();
    let ended = false;
    const outcome = asking.ask(requests, owner, stream.send, new AbortController().signal, LONG_MS).finally(() => (ended = true));
    await settled();
    return { ids: stream.sent.map((request) => request.id), outcome, ended: () => ended };
  }

  it('refuses a form answer with a made-up action or fields the form did not ask, here and on another instance, and keeps waiting', async () => {
    const asking = relay();
    const other = relay();
    const call = await asked(asking, { city: CITY });
    const [id] = call.ids as [string];
    for (const bad of [
      { action: 'bogus', content: { city: 'Oslo' } },
      { action: 'accept', content: { city: 'Oslo', extra: '<img src=x>' } },
      { action: 'accept', content: { city: 42 } },
      { action: 'accept', content: {} },
      { action: 'accept' },
      { action: 'decline', content: { city: 'Oslo' } },
      'yes',
    ]) {
      assert.equal(await asking.answer({ id, result: bad }, 'alice'), 'invalid', JSON.stringify(bad));
      assert.equal(await other.answer({ id, result: bad }, 'alice'), 'invalid', `forwarded ${JSON.stringify(bad)}`);
    }
    assert.deepEqual(publishes, [], 'nothing invalid crossed the storage');
    await settled();
    assert.equal(call.ended(), false);
    assert.equal(await other.answer({ id, result: { action: 'accept', content: { city: 'Oslo' } } }, 'alice'), 'forwarded');
    assert.deepEqual(await call.outcome, { answers: { city: { action: 'accept', content: { city: 'Oslo' } } } });
  });

  it('refuses a sampled message or roots list that is not one, and names the request and the problem', async () => {
    const asking = relay();
    const call = await asked(asking, { model: MODEL, dirs: { method: 'roots/list', params: {} } });
    const [model, dirs] = call.ids as [string, string];
    const outcome = await asking.answerAll(
      [
        { id: model, result: { role: 'assistant', content: { type: 'text' }, model: 'm' } },
        { id: dirs, result: { roots: [{ uri: 'https://example.com/' }] } },
      ],
      'alice',
    );
    assert.deepEqual(outcome, {
      invalid: [
        { id: model, problem: 'content.text must be a string' },
        { id: dirs, problem: 'roots[0].uri must be a file:// URI' },
      ],
    });
    assert.equal(asking.pending, 2, 'neither was taken');
  });

  it('delivers nothing of a POST with one bad answer, and everything once the client sends it again fixed', async () => {
    const asking = relay();
    const call = await asked(asking, { city: CITY, model: MODEL });
    const [city, model] = call.ids as [string, string];
    const good = { id: city, result: { action: 'accept', content: { city: 'Oslo' } } };
    assert.ok('invalid' in (await asking.answerAll([good, { id: model, result: { role: 'robot' } }], 'alice')));
    assert.equal(asking.pending, 2);
    const sampled = { role: 'assistant', content: { type: 'text', text: 'Hello' }, model: 'm', stopReason: 'endTurn' };
    assert.deepEqual(await asking.answerAll([good, { id: model, result: sampled }], 'alice'), { delivered: 2, forwarded: 0, unknown: 0 });
    assert.deepEqual(await call.outcome, { answers: { city: good.result, model: sampled } });
  });

  it("sends one POST's answers for one instance in one publish, and none for instances that asked nothing", async () => {
    const first = relay();
    const second = relay();
    const receiver = relay();
    const a = await asked(first, { city: CITY, dirs: { method: 'roots/list', params: {} } });
    const b = await asked(first, { other: CITY });
    const c = await asked(second, { dirs: { method: 'roots/list', params: {} } });
    const accept = { action: 'accept', content: { city: 'Bergen' } };
    const answers = [
      { id: a.ids[0]!, result: accept },
      { id: a.ids[1]!, result: { roots: [] } },
      { id: b.ids[0]!, result: accept },
      { id: c.ids[0]!, result: { roots: [] } },
      // Made up: an instance nobody runs, and a round nobody asked.
      ...Array.from({ length: 20 }, (_, n) => ({ id: `nobody${n}.round.0`, result: { roots: [] } })),
      { id: `${a.ids[0]!.split('.')[0]}.unasked.0`, result: { roots: [] } },
    ];
    assert.deepEqual(await receiver.answerAll(answers, 'alice'), { delivered: 0, forwarded: 4, unknown: 21 });
    assert.equal(publishes.length, 2, JSON.stringify(publishes));
    assert.deepEqual(await a.outcome, { answers: { city: accept, dirs: { roots: [] } } });
    assert.deepEqual(await b.outcome, { answers: { other: accept } });
    assert.deepEqual(await c.outcome, { answers: { dirs: { roots: [] } } });
  });

  it('drops a forwarded answer that does not fit, whoever published it on the channel', async () => {
    const asking = relay();
    const call = await asked(asking, { city: CITY });
    const [id] = call.ids as [string];
    const channel = { namespace: 'mcp-input', kind: 'answers', id: id.split('.')[0]! };
    await store.publish(channel, JSON.stringify({ owner: 'alice', answers: [{ id, result: { action: 'accept', content: { city: 'Oslo', admin: true } } }] }));
    await settled();
    assert.equal(call.ended(), false);
    // One answer per message, as an instance of an earlier version forwards it.
    await store.publish(channel, JSON.stringify({ owner: 'alice', answer: { id, result: { action: 'cancel' } } }));
    assert.deepEqual(await call.outcome, { answers: { city: { action: 'cancel' } } });
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
