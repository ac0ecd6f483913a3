import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { setImmediate as flush } from 'node:timers/promises';
import { EdgeHub, type EdgeHubOptions } from '../../lib/edge/edge-hub.js';
import { EDGE_HEARTBEAT_MS, EDGE_STALE_MS, MAX_ANSWER_BYTES, siteChannel, type ChannelKind } from '../../lib/edge/edge-protocol.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { MAX_BATCH_MESSAGES } from '../../lib/edge/message-batch.js';
import { recordingLogger } from '../support/recording-logger.js';

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  listing: { name, description: `tool ${name}`, inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, annotations: { readOnlyHint: true }, ...extra },
  timeoutMs: 30_000,
  maxDurationMs: 60_000,
});
const id = (n: number) => n.toString(16).padStart(32, '0');
const request = (n: number) => ({ executionId: id(n), toolName: 'plant-a.x', arguments: { n } });

describe('EdgeHub over the real MemoryStore', () => {
  let store: MemoryStore;
  let hub: EdgeHub;
  let logger: ReturnType<typeof recordingLogger>;
  let changes: number;
  let delivered: Array<[string, unknown]>;
  let failed: Array<[string, string]>;
  let heard: Array<[ChannelKind, string, any]>;

  const hubOptions = (options: Partial<EdgeHubOptions> = {}): EdgeHubOptions => ({
    store,
    sites: ['plant-a', 'plant-b'],
    naming: '{site}.{tool}',
    maxPendingPerSite: 2,
    endpoint: '/hub',
    logger,
    onToolsChanged: () => (changes += 1),
    deliver: (executionId, result) => (delivered.push([executionId, result]), 'settled'),
    failSite: (site, message) => failed.push([site, message]),
    ask: () => 'unknown',
    ...options,
  });
  const open = (options: Partial<EdgeHubOptions> = {}) => (hub = new EdgeHub(hubOptions(options)));
  const publish = async (site: string, kind: ChannelKind, message: unknown) => {
    await store.publish(siteChannel(site, kind), typeof message === 'string' ? message : JSON.stringify(message));
    await flush();
  };
  const announce = (site: string, tools: unknown[] = [tool('x')], instance = `${site}-1`) => publish(site, 'announce', { t: 'announce', site, instance, tools });
  const names = () => hub.tools().map((definition) => definition.name).sort();
  const warnings = () => logger.lines.filter((line) => line.startsWith('warn '));

  beforeEach(() => {
    store = new MemoryStore();
    logger = recordingLogger();
    changes = 0;
    delivered = [];
    failed = [];
    heard = [];
    for (const site of ['plant-a', 'plant-b', 'plant-c']) {
      store.subscribe(siteChannel(site, 'calls'), (text) => heard.push(['calls', site, JSON.parse(text)]));
    }
  });
  afterEach(async () => {
    hub?.close();
    mock.timers.reset();
    await store.close();
  });

  describe('tools', () => {
    it("serves each configured site's tools under the naming pattern, compiled like declared tools", async () => {
      open();
      await announce('plant-a', [tool('x'), tool('y')]);
      await announce('plant-b', [tool('x')]);
      assert.deepEqual(names(), ['plant-a.x', 'plant-a.y', 'plant-b.x']);
      const x = hub.tools().find((definition) => definition.name === 'plant-a.x')!;
      assert.deepEqual(x.relay, { site: 'plant-a', tool: 'x' });
      assert.equal(x.listing.description, 'tool x');
      assert.equal(x.listing.annotations?.readOnlyHint, true);
      assert.equal(x.timeoutMs, 30_000);
      assert.equal(x.maxDurationMs, 60_000);
      assert.deepEqual(x.checkArguments({}).length, 1);
      assert.deepEqual(x.checkArguments({ n: 1 }), []);
      assert.deepEqual(Object.fromEntries(hub.liveSites), { 'plant-a': 2, 'plant-b': 1 });
      assert.equal(changes, 2);
    });

    it('uses the endpoint naming pattern', async () => {
      open({ naming: 'edge_{tool}_at_{site}' });
      await announce('plant-a');
      assert.deepEqual(names(), ['edge_x_at_plant-a']);
    });

    it('refuses (and logs) a tool whose hub name is not a valid tool name, and keeps the others', async () => {
      open();
      await announce('plant-a', [tool('bad name'), tool('x'), tool('y'.repeat(128))]);
      assert.deepEqual(names(), ['plant-a.x']);
      assert.equal(warnings().filter((line) => /tool "bad name" of site plant-a was refused: its hub name "plant-a\.bad name" is not a valid tool name/.test(line)).length, 1);
      assert.ok(warnings().some((line) => line.includes('is not a valid tool name') && line.includes('yyyy')));
    });

    it('refuses (and logs) a tool whose schema does not compile', async () => {
      open();
      await announce('plant-a', [{ ...tool('x'), listing: { name: 'x', inputSchema: { type: 'nonsense' } } }, tool('y')]);
      assert.deepEqual(names(), ['plant-a.y']);
      assert.ok(warnings().some((line) => line.includes('tool "x" of site plant-a was refused')), warnings().join('\n'));
    });

    it('hears nothing from sites it does not serve', async () => {
      open();
      await announce('plant-c');
      assert.deepEqual(names(), []);
      assert.equal(changes, 0);
    });

    it('refuses and logs an announcement naming another site, and a malformed one', async () => {
      open();
      await publish('plant-a', 'announce', { t: 'announce', site: 'plant-b', instance: 'i', tools: [tool('x')] });
      await publish('plant-a', 'announce', '{oops');
      assert.deepEqual(names(), []);
      assert.deepEqual(warnings(), [
        'warn an announcement of site plant-a was refused: it names site "plant-b" on the channel of site plant-a',
        'warn an announcement of site plant-a was refused: not a JSON object',
      ]);
    });

    it('rebuilds only when the tools change, at most once a second, and logs a flood once', async () => {
      mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
      open();
      await announce('plant-a', [tool('x')]);
      await announce('plant-a', [tool('x')]);
      assert.equal(changes, 1);
      for (let index = 0; index < 50; index += 1) await announce('plant-a', [tool('x'), tool(`flood${index}`)]);
      assert.equal(changes, 1);
      assert.deepEqual(names(), ['plant-a.x']);
      assert.equal(warnings().filter((line) => line.includes('announces changed tools faster than once a second')).length, 1);
      mock.timers.tick(1_000);
      await announce('plant-a', [tool('x'), tool('late')]);
      assert.equal(changes, 2);
      assert.deepEqual(names(), ['plant-a.late', 'plant-a.x']);
    });

    it('takes a new instance of a site for a restart, and warns (following the newer one) when the one before speaks again', async () => {
      open();
      await announce('plant-a', [tool('x')], 'first');
      await announce('plant-a', [tool('x')], 'second');
      assert.deepEqual(warnings(), [], 'a restart is not two instances');
      await announce('plant-a', [tool('x')], 'first');
      assert.deepEqual(warnings(), ['warn two Node-RED instances announce site plant-a; calls go to the one that started last (run one edge per site name)']);
      hub.send(request(1), { site: 'plant-a', tool: 'x' }, {}, 'v');
      await flush();
      assert.equal(heard.at(-1)?.[2].instance, 'second');
    });
  });

  describe('liveness', () => {
    it('forgets a site not heard from for EDGE_STALE_MS: tools withdrawn, its pending calls failed naming it', async () => {
      mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
      open();
      await announce('plant-a');
      await announce('plant-b');
      hub.send(request(1), { site: 'plant-a', tool: 'x' }, {}, '2025-11-25');
      // plant-b keeps its heartbeat; plant-a falls silent.
      for (let elapsed = 0; elapsed <= EDGE_STALE_MS; elapsed += EDGE_HEARTBEAT_MS / 2) {
        mock.timers.tick(EDGE_HEARTBEAT_MS / 2);
        await announce('plant-b');
      }
      mock.timers.tick(1_000);
      assert.deepEqual(names(), ['plant-b.x']);
      assert.deepEqual(failed, [['plant-a', 'Site plant-a went away before answering (site plant-a stopped answering (no announcement for 6.5 s)).']]);
      assert.ok(warnings().some((line) => line.startsWith('warn site plant-a stopped answering') && line.endsWith('its tools are withdrawn from /hub')));
      // Its pending call is gone: a late answer for it is not delivered.
      await publish('plant-a', 'answers', { t: 'answer', id: id(1), result: 'late' });
      assert.deepEqual(delivered, []);
      assert.throws(() => hub.send(request(2), { site: 'plant-a', tool: 'x' }, {}, '2025-11-25'), /site plant-a is not connected/);
    });

    it('keeps a site that announces in time', async () => {
      mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
      open();
      await announce('plant-a');
      for (let beat = 0; beat < 10; beat += 1) {
        mock.timers.tick(EDGE_HEARTBEAT_MS);
        await announce('plant-a');
      }
      assert.deepEqual(names(), ['plant-a.x']);
      assert.deepEqual(failed, []);
    });

    it('ends the calls pending on an instance at once when a new instance of its site announces itself (a restart), naming the site', async () => {
      mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
      open({ maxPendingPerSite: 2 });
      await announce('plant-a', [tool('x')], 'before');
      await announce('plant-b');
      hub.send(request(1), { site: 'plant-a', tool: 'x' }, {}, 'v');
      hub.send(request(2), { site: 'plant-a', tool: 'x' }, {}, 'v');
      hub.send(request(3), { site: 'plant-b', tool: 'x' }, {}, 'v');
      // Restarted well within the liveness window, and within a second of the last rebuild.
      mock.timers.tick(500);
      await announce('plant-a', [tool('x')], 'after');
      const restarted = 'Site plant-a restarted before answering: the edge Node-RED the call was sent to was replaced by a new instance.';
      assert.deepEqual(delivered, [
        [id(1), { content: [{ type: 'text', text: restarted }], isError: true }],
        [id(2), { content: [{ type: 'text', text: restarted }], isError: true }],
      ]);
      assert.deepEqual(failed, [], 'the site stays: only the calls of the instance before end');
      assert.deepEqual(warnings(), ['warn site plant-a restarted (a new instance announced itself): 2 call(s) pending on the one before ended']);
      // Their slots are free, a late answer from the instance before is dropped, and new calls go to the new instance.
      await publish('plant-a', 'answers', { t: 'answer', id: id(1), result: 'late' });
      assert.equal(delivered.length, 2);
      hub.send(request(4), { site: 'plant-a', tool: 'x' }, {}, 'v');
      hub.send(request(5), { site: 'plant-a', tool: 'x' }, {}, 'v');
      await flush();
      assert.deepEqual(heard.filter(([, site]) => site === 'plant-a').map(([, , message]) => [message.id, message.instance]), [
        [id(1), 'before'],
        [id(2), 'before'],
        [id(4), 'after'],
        [id(5), 'after'],
      ]);
      // plant-b's call is untouched; the new instance's next heartbeat is its ordinary self.
      await publish('plant-b', 'answers', { t: 'answer', id: id(3), result: 'b' });
      assert.deepEqual(delivered.at(-1), [id(3), 'b']);
      mock.timers.tick(EDGE_HEARTBEAT_MS);
      await announce('plant-a', [tool('x')], 'after');
      assert.deepEqual(names(), ['plant-a.x', 'plant-b.x']);
      assert.equal(warnings().length, 1);
    });

    it('remembers the tools of a site that went away, to tell their callers it is offline, until it is back', async () => {
      open();
      await announce('plant-a', [tool('x'), tool('y')]);
      assert.equal(hub.offline('plant-a.x'), undefined, 'a live tool is not offline');
      await publish('plant-a', 'announce', { t: 'bye', site: 'plant-a', instance: 'plant-a-1' });
      assert.deepEqual(hub.offline('plant-a.y'), { site: 'plant-a', message: 'Site plant-a is offline (site plant-a stopped): tool "plant-a.y" is back when its edge Node-RED announces it again.' });
      assert.equal(hub.offline('plant-a.z'), undefined, 'a name the site never offered');
      assert.equal(hub.offline('plant-b.x'), undefined);
      await announce('plant-a', [tool('x')], 'plant-a-2');
      assert.equal(hub.offline('plant-a.y'), undefined, 'the site is back');
      await publish('plant-a', 'announce', { t: 'bye', site: 'plant-a', instance: 'plant-a-2' });
      assert.equal(hub.offline('plant-a.y'), undefined, 'only the tools it offered last');
      assert.ok(hub.offline('plant-a.x'));
      hub.close();
      assert.equal(hub.offline('plant-a.x'), undefined, 'a stopped hub endpoint remembers nothing');
    });

    it("forgets a site at once on its own instance's farewell, not on another instance's", async () => {
      open();
      await announce('plant-a', [tool('x')], 'live');
      await publish('plant-a', 'announce', { t: 'bye', site: 'plant-a', instance: 'old' });
      assert.deepEqual(names(), ['plant-a.x']);
      await publish('plant-a', 'announce', { t: 'bye', site: 'plant-a', instance: 'live' });
      assert.deepEqual(names(), []);
      assert.equal(failed.length, 1);
      assert.match(failed[0]![1], /site plant-a stopped/);
    });
  });

  describe('calls', () => {
    it('sends a call to its site with only the caller identity, and delivers the answer from that site', async () => {
      open();
      await announce('plant-a');
      hub.send(request(1), { site: 'plant-a', tool: 'x' }, { subject: 'u1', email: 'u@example.test', groups: ['g'], client: 'client.test', session: 'secret-session', editor: { user: 'admin' } } as never, '2026-07-28');
      await flush();
      // Addressed to the instance the hub last heard: another instance of the site does not run it.
      assert.deepEqual(heard, [['calls', 'plant-a', { t: 'call', id: id(1), instance: 'plant-a-1', tool: 'x', arguments: { n: 1 }, caller: { subject: 'u1', email: 'u@example.test', groups: ['g'], client: 'client.test' }, hub: '/hub', protocolVersion: '2026-07-28', readsBatches: true }]]);
      // An answer on another site's channel, or for an unknown call, is not delivered.
      await announce('plant-b');
      await publish('plant-b', 'answers', { t: 'answer', id: id(1), result: 'forged' });
      await publish('plant-a', 'answers', { t: 'answer', id: id(99), result: 'unknown' });
      assert.deepEqual(delivered, []);
      await publish('plant-a', 'answers', { t: 'answer', id: id(1), result: 'real' });
      await publish('plant-a', 'answers', { t: 'answer', id: id(1), result: 'again' });
      assert.deepEqual(delivered, [[id(1), 'real']]);
    });

    it('holds each site to maxPendingPerSite; an answer frees a slot; other sites are not affected', async () => {
      open();
      await announce('plant-a');
      await announce('plant-b');
      hub.send(request(1), { site: 'plant-a', tool: 'x' }, {}, 'v');
      hub.send(request(2), { site: 'plant-a', tool: 'x' }, {}, 'v');
      assert.throws(() => hub.send(request(3), { site: 'plant-a', tool: 'x' }, {}, 'v'), /^Error: site plant-a already has 2 calls pending; retry shortly$/);
      hub.send(request(4), { site: 'plant-b', tool: 'x' }, {}, 'v');
      await publish('plant-a', 'answers', { t: 'answer', id: id(1), result: 'one' });
      hub.send(request(5), { site: 'plant-a', tool: 'x' }, {}, 'v');
      assert.throws(() => hub.send(request(6), { site: 'plant-a', tool: 'x' }, {}, 'v'), /already has 2 calls pending/);
      // A withdrawn call frees its slot too, and its edge hears the cancel.
      hub.withdraw(id(2), 'cancelled');
      await flush();
      assert.deepEqual(heard.at(-1), ['calls', 'plant-a', { t: 'cancel', id: id(2), reason: 'cancelled' }]);
      hub.send(request(7), { site: 'plant-a', tool: 'x' }, {}, 'v');
    });

    it('drops the answer of a withdrawn call, and withdraws a call once', async () => {
      open();
      await announce('plant-a');
      hub.send(request(1), { site: 'plant-a', tool: 'x' }, {}, 'v');
      hub.withdraw(id(1), 'timeout');
      hub.withdraw(id(1), 'timeout');
      await publish('plant-a', 'answers', { t: 'answer', id: id(1), result: 'late' });
      assert.deepEqual(delivered, []);
      assert.equal(heard.filter(([, , message]) => message.t === 'cancel').length, 1);
    });

    it('ends a call whose answer is too large with an error naming the site, and frees its slot', async () => {
      open({ maxPendingPerSite: 1 });
      await announce('plant-a');
      hub.send(request(1), { site: 'plant-a', tool: 'x' }, {}, 'v');
      await publish('plant-a', 'answers', JSON.stringify({ t: 'answer', id: id(1), result: 'r'.repeat(MAX_ANSWER_BYTES) }));
      assert.equal(delivered.length, 1);
      const [executionId, result] = delivered[0]! as [string, any];
      assert.equal(executionId, id(1));
      assert.equal(result.isError, true);
      assert.match(result.content[0].text, new RegExp(`^Site plant-a sent an answer the hub refused: message of \\d+ bytes is over the ${MAX_ANSWER_BYTES} bytes an edge may send\\.$`));
      assert.ok(warnings().some((line) => line.startsWith('warn an answer from site plant-a was refused')));
      hub.send(request(2), { site: 'plant-a', tool: 'x' }, {}, 'v');
    });

    it('ends a call at once when its site cannot be reached', async () => {
      open();
      await announce('plant-a');
      await store.close();
      hub.send(request(1), { site: 'plant-a', tool: 'x' }, {}, 'v');
      await flush();
      assert.equal(delivered.length, 1);
      assert.match((delivered[0]![1] as any).content[0].text, /^Site plant-a could not be reached: storage unavailable \(closed\)\.$/);
    });

    it('refuses a call for a site that is not live', () => {
      open();
      assert.throws(() => hub.send(request(1), { site: 'plant-a', tool: 'x' }, {}, 'v'), /site plant-a is not connected/);
    });
  });

  describe('several messages in one (message-batch.ts)', () => {
    /** Every message on plant-a's calls channel as it crossed: each text, split into its lines. */
    let texts: string[];
    beforeEach(() => {
      texts = [];
      store.subscribe(siteChannel('plant-a', 'calls'), (text) => texts.push(text));
      // The listener of the outer beforeEach parses each text as one message: a batch is not one.
      heard = [];
    });
    const readsBatches = (instance = 'plant-a-1') => publish('plant-a', 'announce', { t: 'announce', site: 'plant-a', instance, tools: [tool('x')], readsBatches: true });

    it('sends the calls and cancels of one turn to a site that reads batches in one message, in order', async () => {
      open({ maxPendingPerSite: 10 });
      await readsBatches();
      for (const n of [1, 2, 3]) hub.send(request(n), { site: 'plant-a', tool: 'x' }, {}, 'v');
      hub.withdraw(id(2), 'cancelled');
      await flush();
      assert.equal(texts.length, 1);
      const lines = texts[0]!.split('\n').map((line) => JSON.parse(line));
      assert.deepEqual(lines.map((message) => [message.t, message.id]), [['call', id(1)], ['call', id(2)], ['call', id(3)], ['cancel', id(2)]]);
    });

    it('sends one message per call to a site that did not say it reads batches (an edge of before)', async () => {
      open({ maxPendingPerSite: 10 });
      await announce('plant-a');
      for (const n of [1, 2, 3]) hub.send(request(n), { site: 'plant-a', tool: 'x' }, {}, 'v');
      await flush();
      assert.deepEqual(texts.map((text) => JSON.parse(text).id), [id(1), id(2), id(3)]);
    });

    it('follows what a restarted instance reads at once, before its tools are rebuilt', async () => {
      open({ maxPendingPerSite: 10 });
      await readsBatches('plant-a-1');
      // Within the second a site is rebuilt at most once: only the instance changes now.
      await announce('plant-a', [tool('x')], 'plant-a-2');
      for (const n of [1, 2]) hub.send(request(n), { site: 'plant-a', tool: 'x' }, {}, 'v');
      await flush();
      assert.deepEqual(texts.map((text) => JSON.parse(text).instance), ['plant-a-2', 'plant-a-2']);
    });

    it('fails every call of a batch that nobody heard, each naming its site', async () => {
      const quiet = new MemoryStore();
      // A hub on a store where nobody listens to plant-a's calls channel.
      hub = new EdgeHub(hubOptions({ maxPendingPerSite: 10, store: quiet }));
      await quiet.publish(siteChannel('plant-a', 'announce'), JSON.stringify({ t: 'announce', site: 'plant-a', instance: 'plant-a-1', tools: [tool('x')], readsBatches: true }));
      await flush();
      for (const n of [1, 2]) hub.send(request(n), { site: 'plant-a', tool: 'x' }, {}, 'v');
      await flush();
      await flush();
      assert.deepEqual(delivered.map(([executionId]) => executionId), [id(1), id(2)]);
      for (const [, result] of delivered) assert.match((result as any).content[0].text, /^Site plant-a could not be reached: nobody is listening for its calls right now/);
      await quiet.close();
    });

    it('reads the answers and progress of one message, each checked as if it came alone', async () => {
      const progress: string[] = [];
      open({ maxPendingPerSite: 10, progress: (executionId) => progress.push(executionId) });
      await readsBatches();
      for (const n of [1, 2, 3]) hub.send(request(n), { site: 'plant-a', tool: 'x' }, {}, 'v');
      await flush();
      const batch = [
        { t: 'progress', id: id(1), progress: 1, total: 2 },
        { t: 'answer', id: id(1), result: 'one' },
        { t: 'answer', id: id(99), result: 'for nobody' },
        { t: 'answer', id: id(2), result: 'r'.repeat(MAX_ANSWER_BYTES) },
        { t: 'answer', id: id(3), result: 'three' },
      ].map((message) => JSON.stringify(message));
      await publish('plant-a', 'answers', [...batch.slice(0, 3), 'not json', ...batch.slice(3)].join('\n'));
      assert.deepEqual(progress, [id(1)]);
      assert.deepEqual(
        delivered.map(([executionId, result]) => [executionId, typeof result === 'string' ? result : (result as any).isError]),
        [
          [id(1), 'one'],
          [id(2), true],
          [id(3), 'three'],
        ],
      );
      assert.ok(warnings().some((line) => line.includes('an answer from site plant-a was refused: not a JSON object')));
    });

    it('refuses the lines of one message past MAX_BATCH_MESSAGES, and says so', async () => {
      open({ maxPendingPerSite: 100 });
      await readsBatches();
      const ids = Array.from({ length: MAX_BATCH_MESSAGES + 2 }, (_, n) => n + 1);
      for (const n of ids) hub.send(request(n), { site: 'plant-a', tool: 'x' }, {}, 'v');
      await flush();
      await publish('plant-a', 'answers', ids.map((n) => JSON.stringify({ t: 'answer', id: id(n), result: n })).join('\n'));
      assert.equal(delivered.length, MAX_BATCH_MESSAGES);
      assert.ok(warnings().some((line) => line.includes(`site plant-a sent ${MAX_BATCH_MESSAGES + 2} messages in one; the 2 past ${MAX_BATCH_MESSAGES} were refused`)));
    });
  });

  it('stops listening when closed', async () => {
    open();
    hub.close();
    await announce('plant-a');
    assert.deepEqual(names(), []);
    assert.equal(changes, 0);
  });
});
