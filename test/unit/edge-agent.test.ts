import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { setImmediate as flush } from 'node:timers/promises';
import { EdgeAgent, type RelayNotes } from '../../lib/edge/edge-agent.js';
import { EdgeHub } from '../../lib/edge/edge-hub.js';
import { EDGE_HEARTBEAT_MS, MAX_NOTE_BYTES, siteChannel, type CallMessage } from '../../lib/edge/edge-protocol.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig, type ToolDefinition } from '../../lib/mcp/tool-definition.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { MAX_BATCH_MESSAGES } from '../../lib/edge/message-batch.js';
import { StorageUnavailableError, type StoreState } from '../../lib/storage/store.js';
import { recordingLogger } from '../support/recording-logger.js';

/**
 * The real MemoryStore with a connection state of its own, as a RedisStore has one: every start
 * begins `connecting`, and what is published before `ready` is refused, as ioredis refuses it.
 */
class ConnectingStore extends MemoryStore {
  private current: StoreState = 'connecting';
  private readonly watchers = new Set<(state: StoreState) => void>();

  override get state(): StoreState {
    return this.current;
  }

  become(state: StoreState): void {
    this.current = state;
    for (const watcher of this.watchers) watcher(state);
  }

  override onState(listener?: (state: StoreState) => void): () => void {
    if (!listener) return () => undefined;
    this.watchers.add(listener);
    return () => void this.watchers.delete(listener);
  }

  override async publish(channel: Parameters<MemoryStore['publish']>[0], message: string): Promise<number> {
    if (this.current !== 'ready') throw new StorageUnavailableError(this.current);
    return super.publish(channel, message);
  }
}

const declared = (name: string, timeout = '30') => parseToolConfig({ toolName: name, description: `tool ${name}`, inputSchema: '{"type":"object"}', endpoint: '/edge', timeout });
const call = (id: string, tool = 'x'): CallMessage => ({ t: 'call', id, tool, arguments: {}, caller: { subject: 's' }, hub: '/hub', protocolVersion: '2025-11-25' });

describe('EdgeAgent over the real MemoryStore', () => {
  let store: MemoryStore;
  let logger: ReturnType<typeof recordingLogger>;
  let agent: EdgeAgent | undefined;
  let announced: any[];
  let answers: any[];
  let ran: CallMessage[];
  let withdrawn: string[];
  let catalog: ToolCatalog;
  /** Set by a test to hold runs open; each run resolves with what the test passes. */
  let runs: Array<(result: unknown) => void>;
  /** Each run's way back to the hub before its answer, by call id. */
  let notes: Map<string, RelayNotes>;

  const open = () =>
    (agent = new EdgeAgent({
      store,
      site: 'plant-a',
      logger,
      catalog: () => catalog,
      run: (message, relayNotes) => {
        ran.push(message);
        notes.set(message.id, relayNotes);
        // A test settles a run with its result, `{ ask }` for questions, or undefined for a withdrawn call.
        return new Promise((resolve) => runs.push((result) => resolve(result === undefined || (typeof result === 'object' && result !== null && 'ask' in result) ? (result as never) : { result })));
      },
      withdraw: (executionId) => withdrawn.push(executionId),
    }));
  const send = async (message: unknown) => {
    await store.publish(siteChannel('plant-a', 'calls'), typeof message === 'string' ? message : JSON.stringify(message));
    await flush();
  };

  beforeEach(() => {
    store = new MemoryStore();
    logger = recordingLogger();
    announced = [];
    answers = [];
    ran = [];
    withdrawn = [];
    runs = [];
    notes = new Map();
    catalog = new ToolCatalog([declared('x'), declared('y', '5')]);
    store.subscribe(siteChannel('plant-a', 'announce'), (text) => announced.push(JSON.parse(text)));
    store.subscribe(siteChannel('plant-a', 'answers'), (text) => answers.push(JSON.parse(text)));
  });
  afterEach(async () => {
    await agent?.close();
    agent = undefined;
    mock.timers.reset();
    await store.close();
  });

  it("announces the endpoint's tools at once and on every heartbeat, with their time limits", async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    open();
    await flush();
    assert.equal(announced.length, 1);
    const [first] = announced;
    assert.equal(first.t, 'announce');
    assert.equal(first.site, 'plant-a');
    assert.equal(first.instance, agent!.instance);
    assert.deepEqual(first.tools.map((tool: any) => [tool.listing.name, tool.timeoutMs]), [['x', 30_000], ['y', 5_000]]);
    mock.timers.tick(EDGE_HEARTBEAT_MS);
    mock.timers.tick(EDGE_HEARTBEAT_MS);
    await flush();
    assert.equal(announced.length, 3);
  });

  it('announces a new catalog (a deploy) with its tools, and repeats an unchanged one word for word', async () => {
    const texts: string[] = [];
    store.subscribe(siteChannel('plant-a', 'announce'), (text) => texts.push(text));
    mock.timers.enable({ apis: ['setInterval'] });
    open();
    mock.timers.tick(EDGE_HEARTBEAT_MS);
    await flush();
    assert.equal(texts[1], texts[0], 'the heartbeat of an unchanged catalog');
    catalog = new ToolCatalog([declared('z')]);
    agent!.announce();
    await flush();
    assert.deepEqual(announced.at(-1).tools.map((tool: any) => tool.listing.name), ['z']);
    mock.timers.tick(EDGE_HEARTBEAT_MS);
    await flush();
    assert.equal(texts.at(-1), texts.at(-2));
    assert.equal(texts.length, 4);
  });

  it('keeps in-process tools (get_flow) off the announcement', async () => {
    const inProcess: ToolDefinition = { ...declared('get_flow'), runInProcess: async () => ({ result: { content: [] } }) };
    catalog = new ToolCatalog([declared('x'), inProcess]);
    open();
    await flush();
    assert.deepEqual(announced[0].tools.map((tool: any) => tool.listing.name), ['x']);
  });

  it('keeps tools it relays for other sites (an endpoint that is also a hub) off the announcement', async () => {
    const relayed: ToolDefinition = { ...declared('plant-b.valve'), relay: { site: 'plant-b', tool: 'valve' } };
    catalog = new ToolCatalog([declared('x'), relayed]);
    open();
    await flush();
    assert.deepEqual(announced[0].tools.map((tool: any) => tool.listing.name), ['x']);
  });

  it('runs each call id once, however often it is delivered, and publishes its answer', async () => {
    open();
    await send(call('c1'));
    await send(call('c1'));
    await send(call('c2'));
    assert.deepEqual(ran.map((message) => message.id), ['c1', 'c2']);
    runs[0]!({ content: [{ type: 'text', text: 'one' }] });
    await flush();
    await flush();
    assert.deepEqual(answers, [{ t: 'answer', id: 'c1', result: { content: [{ type: 'text', text: 'one' }] } }]);
    // Answered already: a redelivery is still not run again.
    await send(call('c1'));
    assert.equal(ran.length, 2);
  });

  describe('several messages in one (message-batch.ts)', () => {
    /** Each text on the answers channel as it crossed. */
    let texts: string[];
    beforeEach(() => {
      texts = [];
      store.subscribe(siteChannel('plant-a', 'answers'), (text) => texts.push(text));
    });
    const fromNewHub = (id: string): CallMessage => ({ ...call(id), readsBatches: true });

    it('says in its announcement that it reads batches', async () => {
      open();
      await flush();
      assert.equal(announced[0].readsBatches, true);
    });

    it('runs each call of one message once, in order, and passes its cancels on', async () => {
      open();
      await send([fromNewHub('c1'), fromNewHub('c2'), fromNewHub('c1'), { t: 'cancel', id: 'c2', reason: 'cancelled' }].map((message) => JSON.stringify(message)).join('\n'));
      assert.deepEqual(ran.map((message) => message.id), ['c1', 'c2']);
      assert.deepEqual(withdrawn, ['c2']);
    });

    it('answers the calls of hubs that read batches in one message per turn, and those of older hubs one by one', async () => {
      open();
      await send(fromNewHub('n1'));
      await send(fromNewHub('n2'));
      await send(call('o1'));
      await send(call('o2'));
      for (const [index, text] of ['n1', 'n2', 'o1', 'o2'].entries()) runs[index]!({ content: [{ type: 'text', text }] });
      await flush();
      await flush();
      // The older hub's answers went alone, each readable as one message; the newer hub's together.
      const batched = texts.filter((text) => text.includes('\n'));
      assert.equal(batched.length, 1);
      assert.deepEqual(batched[0]!.split('\n').map((line) => JSON.parse(line).id), ['n1', 'n2']);
      assert.deepEqual(texts.filter((text) => !text.includes('\n')).map((text) => JSON.parse(text).id), ['o1', 'o2']);
    });

    it('sends the answers of its turn before its goodbye when it closes', async () => {
      open();
      await send(fromNewHub('n1'));
      runs[0]!({ content: [{ type: 'text', text: 'last' }] });
      // The answer is queued for the end of the turn; close says goodbye within it.
      await Promise.resolve();
      await Promise.resolve();
      const order: string[] = [];
      store.subscribe(siteChannel('plant-a', 'announce'), (text) => order.push(JSON.parse(text).t));
      store.subscribe(siteChannel('plant-a', 'answers'), (text) => order.push(JSON.parse(text).t));
      await agent!.close();
      await flush();
      assert.deepEqual(order, ['answer', 'bye']);
    });

    it('ignores (and logs) the lines of one message past MAX_BATCH_MESSAGES', async () => {
      open();
      await send(Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, n) => JSON.stringify(fromNewHub(`c${n}`))).join('\n'));
      assert.equal(ran.length, MAX_BATCH_MESSAGES);
      assert.ok(logger.lines.some((line) => line.includes(`site plant-a got ${MAX_BATCH_MESSAGES + 1} messages in one on its calls channel; the 1 past ${MAX_BATCH_MESSAGES} were ignored`)));
    });
  });

  it('passes a cancel on, and publishes nothing for a call that ended unanswered', async () => {
    open();
    await send(call('c1'));
    await send({ t: 'cancel', id: 'c1', reason: 'cancelled' });
    assert.deepEqual(withdrawn, ['c1']);
    runs[0]!(undefined);
    await flush();
    await flush();
    assert.deepEqual(answers, []);
  });

  it('ignores (and logs) what is not a call or a cancel', async () => {
    open();
    await send('not json');
    await send({ t: 'call', id: 'c1' });
    assert.deepEqual(ran, []);
    assert.ok(logger.lines.some((line) => line.startsWith('warn a message on the calls channel of site plant-a was ignored')), logger.lines.join('\n'));
  });

  it('says goodbye when closed and stops listening', async () => {
    open();
    await flush();
    const instance = agent!.instance;
    await agent!.close();
    await flush();
    assert.deepEqual(announced.at(-1), { t: 'bye', site: 'plant-a', instance });
    await send(call('after-close'));
    assert.deepEqual(ran, []);
  });

  it('runs the calls sent to its own instance or to none, never those sent to another instance of its site', async () => {
    open();
    await send({ ...call('mine'), instance: agent!.instance });
    await send({ ...call('before-a-restart'), instance: 'an-instance-before-this-one' });
    await send(call('from-an-older-hub'));
    assert.deepEqual(ran.map((message) => message.id), ['mine', 'from-an-older-hub']);
    assert.deepEqual(logger.lines, []);
  });

  it('says goodbye when its storage closes first (a full deploy or a shutdown closes the storage node before the endpoint is done)', async () => {
    open();
    await flush();
    const instance = agent!.instance;
    await store.close();
    await flush();
    assert.deepEqual(announced.at(-1), { t: 'bye', site: 'plant-a', instance });
    assert.equal(announced.filter((message) => message.t === 'bye').length, 1);
    // Its own close after that finds the store closed, and says nothing more.
    await agent!.close();
    assert.deepEqual(logger.lines, []);
  });

  it('leaves no goodbye with the storage once it has said its own', async () => {
    open();
    await agent!.close();
    await flush();
    await store.close();
    await flush();
    assert.equal(announced.filter((message) => message.t === 'bye').length, 1);
  });

  it('announces as soon as its storage is connected, not before, and warns of nothing at start', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    const connecting = new ConnectingStore();
    const heardThere: any[] = [];
    connecting.subscribe(siteChannel('plant-a', 'announce'), (text) => heardThere.push(JSON.parse(text)));
    agent = new EdgeAgent({ store: connecting, site: 'plant-a', logger, catalog: () => catalog, run: async () => undefined, withdraw: () => undefined });
    mock.timers.tick(EDGE_HEARTBEAT_MS);
    await flush();
    assert.equal(heardThere.length, 0, 'nothing is published while connecting (it would be lost)');
    connecting.become('ready');
    await flush();
    assert.deepEqual(heardThere.map((message) => [message.t, message.instance]), [['announce', agent.instance]], 'at once, not at the next heartbeat');
    // A reconnect after an outage announces at once as well.
    connecting.become('reconnecting');
    mock.timers.tick(EDGE_HEARTBEAT_MS);
    connecting.become('ready');
    await flush();
    assert.equal(heardThere.length, 2);
    assert.deepEqual(logger.lines, []);
    await agent.close();
    agent = undefined;
    await connecting.close();
  });

  it('serves a hub end to end: the hub lists, sends, and settles with the edge answer', async () => {
    const delivered: Array<[string, unknown]> = [];
    const hub = new EdgeHub({
      store,
      sites: ['plant-a'],
      naming: '{site}.{tool}',
      maxPendingPerSite: 4,
      endpoint: '/hub',
      logger,
      onToolsChanged: () => undefined,
      deliver: (executionId, result) => (delivered.push([executionId, result]), 'settled'),
      failSite: () => undefined,
      ask: () => 'unknown',
    });
    try {
      open();
      await flush();
      await flush();
      assert.deepEqual(hub.tools().map((tool) => tool.name), ['plant-a.x', 'plant-a.y']);
      hub.send({ executionId: 'e1', toolName: 'plant-a.x', arguments: { a: 1 } }, { site: 'plant-a', tool: 'x' }, { email: 'u@example.test' }, '2026-07-28');
      await flush();
      await flush();
      assert.deepEqual(ran, [{ t: 'call', id: 'e1', instance: agent!.instance, tool: 'x', arguments: { a: 1 }, caller: { email: 'u@example.test' }, hub: '/hub', protocolVersion: '2026-07-28', readsBatches: true }]);
      runs[0]!('done');
      await flush();
      await flush();
      assert.deepEqual(delivered, [['e1', 'done']]);
      await agent!.close();
      await flush();
      assert.deepEqual(hub.tools(), []);
    } finally {
      hub.close();
    }
  });

  it("relays the flow's progress and log lines to the hub, in order and before the answer; the hub takes them only from the call's site while it waits", async () => {
    const heard: string[] = [];
    const delivered: Array<[string, unknown]> = [];
    const hub = new EdgeHub({
      store,
      sites: ['plant-a', 'plant-b'],
      naming: '{site}.{tool}',
      maxPendingPerSite: 4,
      endpoint: '/hub',
      logger,
      onToolsChanged: () => undefined,
      deliver: (executionId, result) => (heard.push(`answer ${executionId}`), delivered.push([executionId, result]), 'settled'),
      failSite: () => undefined,
      ask: () => 'unknown',
      progress: (executionId, report) => heard.push(`progress ${executionId} ${report.progress}/${report.total} ${report.message}`),
      log: (executionId, line) => heard.push(`log ${executionId} ${line.level} ${JSON.stringify(line.data)}`),
    });
    try {
      open();
      await flush();
      hub.send({ executionId: 'e1', toolName: 'plant-a.x', arguments: {}, progressToken: true, logLevel: 'info' }, { site: 'plant-a', tool: 'x' }, {}, '2026-07-28');
      await flush();
      await flush();
      assert.equal(ran[0]!.progress, true);
      assert.equal(ran[0]!.logLevel, 'info');
      const relay = notes.get('e1')!;
      await relay.progress({ progress: 1, total: 3, message: 'valve 1' });
      await relay.log({ level: 'notice', data: { valve: 1, ok: true } });
      // The same call id from another site is a forgery: plant-b's user may publish only on plant-b's channels.
      await store.publish(siteChannel('plant-b', 'answers'), JSON.stringify({ t: 'progress', id: 'e1', progress: 2 }));
      // A line too large for the hub is dropped here, where the flow's author reads the warning.
      await relay.log({ level: 'info', data: 'd'.repeat(MAX_NOTE_BYTES) });
      // A malformed report costs that report only: the call goes on.
      await store.publish(siteChannel('plant-a', 'answers'), JSON.stringify({ t: 'progress', id: 'e1', progress: 'most' }));
      runs[0]!('done');
      await flush();
      await flush();
      await relay.progress({ progress: 3, total: 3, message: 'late' });
      await flush();
      assert.deepEqual(heard, ['progress e1 1/3 valve 1', 'log e1 notice {"valve":1,"ok":true}', 'answer e1']);
      assert.deepEqual(delivered, [['e1', 'done']]);
      const warned = logger.lines.filter((line) => line.startsWith('warn '));
      assert.ok(warned.some((line) => line.includes(`site plant-a did not relay a log of `) && line.includes(`over ${MAX_NOTE_BYTES}`)), warned.join('\n'));
      assert.ok(warned.some((line) => line.includes('a progress report or log line from site plant-a was refused: a progress report has a bad progress')), warned.join('\n'));
    } finally {
      hub.close();
    }
  });

  it('publishes the questions a flow asked in place of an answer, and runs each later round of the call once', async () => {
    open();
    await send(call('c1'));
    const requests = { city: { method: 'elicitation/create', params: { message: 'Which city?', requestedSchema: { type: 'object', properties: {} } } } };
    runs[0]!({ ask: { requests, state: { step: 1 } } });
    await flush();
    await flush();
    assert.deepEqual(answers, [{ t: 'ask', id: 'c1', requests, state: { step: 1 } }]);
    // The next round shares the call's id (a task's rounds do): it runs, once.
    const next = { ...call('c1'), input: { round: 1, inputResponses: { city: { action: 'accept', content: {} } }, state: { step: 1 } } };
    await send(next);
    await send(next);
    assert.equal(ran.length, 2);
    assert.deepEqual(ran[1]!.input, next.input);
  });

  it('hands a hub the questions of a call it relayed, and sends the answered round to the same site', async () => {
    const asked: Array<[string, unknown]> = [];
    const hub = new EdgeHub({
      store,
      sites: ['plant-a', 'plant-b'],
      naming: '{site}.{tool}',
      maxPendingPerSite: 1,
      endpoint: '/hub',
      logger,
      onToolsChanged: () => undefined,
      deliver: () => 'unknown',
      failSite: () => undefined,
      ask: (executionId, ask) => (asked.push([executionId, ask]), 'settled'),
    });
    try {
      open();
      await flush();
      hub.send({ executionId: 'e1', toolName: 'plant-a.x', arguments: {} }, { site: 'plant-a', tool: 'x' }, {}, '2026-07-28');
      await flush();
      await flush();
      // Another site cannot ask in this call's name.
      await store.publish(siteChannel('plant-b', 'answers'), JSON.stringify({ t: 'ask', id: 'e1', requests: { q: { roots: {} } } }));
      runs[0]!({ ask: { requests: { q: { method: 'roots/list', params: {} } } } });
      await flush();
      await flush();
      assert.deepEqual(asked, [['e1', { requests: { q: { method: 'roots/list', params: {} } } }]]);
      // The round is over: the site's slot is free for the round that brings the answers.
      hub.send({ executionId: 'e2', toolName: 'plant-a.x', arguments: {}, input: { round: 1, inputResponses: { q: { roots: [] } } } }, { site: 'plant-a', tool: 'x' }, {}, '2026-07-28');
      await flush();
      await flush();
      assert.deepEqual(ran.map((message) => message.input), [undefined, { round: 1, inputResponses: { q: { roots: [] } } }]);
    } finally {
      hub.close();
    }
  });
});
