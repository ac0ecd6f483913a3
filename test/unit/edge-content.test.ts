// An edge's resources, templates, prompts and completions as a hub serves them (lib/edge/edge-content.ts),
// and relayed end to end: a real EdgeHub and a real EdgeAgent on one real MemoryStore, the edge
// answering through the real runRelayedContent and FlowCalls broker, its "flow" being this test.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { setImmediate as flush } from 'node:timers/promises';
import { parseFlowServerConfig } from '../../lib/config/flow-server-config.js';
import { EdgeAgent } from '../../lib/edge/edge-agent.js';
import { isOffered, promptOf, qualifyContents, qualifyMessages, resourceOf } from '../../lib/edge/edge-content.js';
import { EdgeHub, type EdgeHubOptions } from '../../lib/edge/edge-hub.js';
import { DEFAULT_EDGE_URI_NAMING, hubUri } from '../../lib/edge/edge-naming.js';
import { siteChannel, type EdgePrompt, type EdgeResource } from '../../lib/edge/edge-protocol.js';
import { FlowCalls } from '../../lib/mcp/calls/flow-calls.js';
import { parseAppViewConfig } from '../../lib/mcp/content/app-view.js';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import type { ContentCall, ContentContext } from '../../lib/mcp/content/content-types.js';
import { parsePromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { runRelayedContent } from '../../lib/mcp/content/relayed-content.js';
import { parseResourceConfig, type ResourceDefinition } from '../../lib/mcp/content/resource-definition.js';
import type { PromptDefinition } from '../../lib/mcp/content/prompt-definition.js';
import type { McpEndpoint } from '../../lib/mcp/endpoint/mcp-endpoint.js';
import { EndpointEdges } from '../../lib/mcp/endpoint-edges.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { recordingLogger } from '../support/recording-logger.js';

const hubOf = (uri: string, site = 'plant-a') => hubUri(DEFAULT_EDGE_URI_NAMING, site, uri);
const STATUS = 'plant://line-1/status';
const READINGS = 'sensors://{line}/readings/{kind}';
const statusOffered = (listing: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): EdgeResource =>
  ({ listing: { uri: STATUS, name: 'status', mimeType: 'application/json', ...listing }, timeoutMs: 20_000, ...extra }) as EdgeResource;
const readingsOffered = (extra: Record<string, unknown> = {}): EdgeResource =>
  ({ listing: { uriTemplate: READINGS, name: 'readings', mimeType: 'text/plain' }, timeoutMs: 10_000, ...extra }) as EdgeResource;
const summaryOffered = (listing: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): EdgePrompt =>
  ({ listing: { name: 'summary', arguments: [{ name: 'line', required: true }, { name: 'shift' }], ...listing }, timeoutMs: 30_000, ...extra }) as EdgePrompt;
const statusRelay = { site: 'plant-a', name: STATUS };
const summaryRelay = { site: 'plant-a', name: 'summary' };

describe('an edge resource as a hub serves it (resourceOf)', () => {
  it('builds a fixed resource under its hub URI, keeping its title, MIME type, size and annotations, answered by the edge', () => {
    const offered = statusOffered({ title: 'Line 1', description: 'Status of line 1', size: 120, annotations: { audience: ['user', 'assistant'], priority: 0.5 } });
    const resource = resourceOf(hubOf(STATUS), offered, statusRelay, ['operators']);
    assert.equal(resource.uri, 'edge://plant-a/plant://line-1/status');
    assert.equal(resource.template, undefined);
    assert.deepEqual(resource.listing, {
      uri: 'edge://plant-a/plant://line-1/status',
      name: 'status',
      title: 'Line 1',
      description: 'Status of line 1',
      mimeType: 'application/json',
      annotations: { audience: ['user', 'assistant'], priority: 0.5 },
      size: 120,
    });
    assert.equal(resource.mimeType, 'application/json');
    assert.equal(resource.timeoutMs, 20_000);
    assert.equal(resource.staticText, undefined, 'the edge answers every read, even of a resource whose text is set in its editor');
    assert.deepEqual(resource.relay, statusRelay);
    assert.deepEqual(resource.allowedGroups, ['operators']);
    assert.equal(resource.requiredScopes, undefined);
    assert.ok(Object.isFrozen(resource));
    // One audience alone, no priority, no groups: nothing more is said than the edge said.
    const plain = resourceOf(hubOf(STATUS), statusOffered({ annotations: { audience: ['assistant'] } }), statusRelay, undefined);
    assert.deepEqual(plain.listing, { uri: 'edge://plant-a/plant://line-1/status', name: 'status', mimeType: 'application/json', annotations: { audience: ['assistant'] } });
    assert.equal('allowedGroups' in plain, false);
  });

  it('serves a resource the edge serves without a MIME type without one (not as text/plain)', () => {
    const resource = resourceOf(hubOf(STATUS), { listing: { uri: STATUS, name: 'status' }, timeoutMs: 1_000 } as EdgeResource, statusRelay, undefined);
    assert.equal(resource.mimeType, undefined);
    assert.equal('mimeType' in resource.listing, false);
  });

  it('builds a template under its hub URI that matches hub URIs, with its completion lists and flow completions', () => {
    const resource = resourceOf(hubOf(READINGS), readingsOffered({ completions: { line: ['line-1', 'line-2', 'line-1'] }, flowCompletions: ['kind'] }), { site: 'plant-a', name: READINGS }, undefined);
    assert.equal(resource.uri, 'edge://plant-a/sensors://{line}/readings/{kind}');
    assert.deepEqual(resource.listing, { uriTemplate: 'edge://plant-a/sensors://{line}/readings/{kind}', name: 'readings', mimeType: 'text/plain' });
    assert.deepEqual(resource.template?.variables, ['line', 'kind']);
    assert.deepEqual(resource.template?.match('edge://plant-a/sensors://line-1/readings/temp'), { line: 'line-1', kind: 'temp' });
    assert.equal(resource.template?.match('sensors://line-1/readings/temp'), undefined, "the edge's own URI is not the hub's");
    assert.deepEqual([...resource.completions], [['line', ['line-1', 'line-2']]]);
    assert.deepEqual([...resource.flowCompletions], ['kind']);
    // A size is for fixed URIs only, as in the editor.
    const sized = resourceOf(hubOf(READINGS), { ...readingsOffered(), listing: { ...readingsOffered().listing, size: 5 } } as EdgeResource, { site: 'plant-a', name: READINGS }, undefined);
    assert.equal('size' in sized.listing, false);
  });

  it('refuses what a declared resource could not be, as its parser says', () => {
    const cases: Array<[EdgeResource, RegExp]> = [
      [statusOffered({ mimeType: 'not a mime type' }), /invalid MIME type not a mime type/],
      [statusOffered({ mimeType: 7 }), /invalid MIME type 7/],
      [statusOffered({ name: '' }), /invalid resource name/],
      [statusOffered({ size: -1 }), /invalid size -1/],
      [statusOffered({ size: '12kb' }), /invalid size 12kb/],
      [statusOffered({ annotations: { audience: ['robot'] } }), /invalid audience/],
      [statusOffered({ annotations: { audience: ['user', 'user'] } }), /invalid audience/],
      [statusOffered({ annotations: { priority: 2 } }), /invalid priority 2/],
      [statusOffered({}, { timeoutMs: 365 * 24 * 3_600_000 }), /invalid timeout/],
      // A fixed URI has no variable to complete.
      [statusOffered({}, { completions: { line: ['line-1'] } }), /completion list "line" names no variable/],
      [statusOffered({}, { flowCompletions: ['line'] }), /flow completion line names no template variable/],
      [readingsOffered({ completions: { shift: ['day'] } }), /completion list "shift" names no variable or argument without a flow completion/],
      [readingsOffered({ completions: { kind: ['temp'] }, flowCompletions: ['kind'] }), /completion list "kind" names no variable or argument without a flow completion/],
      [readingsOffered({ flowCompletions: ['shift'] }), /flow completion shift names no template variable/],
    ];
    for (const [offered, problem] of cases) {
      assert.throws(() => resourceOf(hubOf('uri' in offered.listing ? offered.listing.uri : offered.listing.uriTemplate), offered, statusRelay, undefined), problem, JSON.stringify(offered).slice(0, 160));
    }
    for (const template of ['sensors://{line', 'sensors://{line}/{line}', 'sensors://{+path}', 'sensors://{}/x']) {
      assert.throws(() => resourceOf(hubOf(template), { listing: { uriTemplate: template, name: 'bad' }, timeoutMs: 1_000 } as EdgeResource, { site: 'plant-a', name: template }, undefined), /URI edge:\/\/plant-a\//, template);
    }
  });
});

describe('an edge prompt as a hub serves it (promptOf)', () => {
  it('builds a prompt under its hub name, answered by the edge, with its arguments, lists and flow completions', () => {
    const prompt = promptOf('plant-a.summary', summaryOffered({ title: 'Summary', description: 'Sums up a line', arguments: [{ name: 'line', description: 'Which line', required: true }, { name: 'shift' }] }, { completions: { line: ['line-1', 'line-2'] }, flowCompletions: ['shift'] }), summaryRelay, ['operators']);
    assert.equal(prompt.name, 'plant-a.summary');
    assert.equal(prompt.template, undefined, 'the edge renders its own template prompts');
    assert.deepEqual(prompt.listing, {
      name: 'plant-a.summary',
      title: 'Summary',
      description: 'Sums up a line',
      arguments: [
        { name: 'line', description: 'Which line', required: true },
        { name: 'shift', required: false },
      ],
    });
    assert.deepEqual([...prompt.completions], [['line', ['line-1', 'line-2']]]);
    assert.deepEqual([...prompt.flowCompletions], ['shift']);
    assert.equal(prompt.timeoutMs, 30_000);
    assert.deepEqual(prompt.relay, summaryRelay);
    assert.deepEqual(prompt.allowedGroups, ['operators']);
    assert.ok(Object.isFrozen(prompt));
  });

  it('refuses a bad hub name, bad arguments, and completions naming no argument or one the flow completes', () => {
    const cases: Array<[string, EdgePrompt, RegExp]> = [
      ['plant-a.bad name', summaryOffered(), /invalid prompt name "plant-a.bad name"/],
      [`plant-a.${'p'.repeat(128)}`, summaryOffered(), /invalid prompt name/],
      ['plant-a.summary', summaryOffered({}, { flowCompletions: ['nobody'] }), /^Error: flow completion nobody names no argument$/],
      ['plant-a.summary', summaryOffered({}, { completions: { nobody: ['x'] } }), /completion list "nobody" names no variable or argument/],
      ['plant-a.summary', summaryOffered({}, { completions: { shift: ['day'] }, flowCompletions: ['shift'] }), /completion list "shift" names no variable or argument without a flow completion/],
      ['plant-a.summary', summaryOffered({ arguments: [{ name: 'a b' }] }), /invalid argument name "a b"/],
      ['plant-a.summary', summaryOffered({ arguments: [{ required: true }] }), /invalid argument name ""/],
      ['plant-a.summary', summaryOffered({ arguments: [{ name: 'line' }, { name: 'line' }] }), /argument line is declared twice/],
    ];
    for (const [name, offered, problem] of cases) assert.throws(() => promptOf(name, offered, summaryRelay, undefined), problem, `${name} ${JSON.stringify(offered).slice(0, 120)}`);
    // Without arguments at all it is a prompt all the same.
    assert.deepEqual(promptOf('plant-a.hello', { listing: { name: 'hello' }, timeoutMs: 1_000 } as EdgePrompt, { site: 'plant-a', name: 'hello' }, undefined).listing, { name: 'plant-a.hello' });
  });
});

describe('what an edge offers hubs (isOffered)', () => {
  const resource = (extra: Record<string, unknown> = {}) => parseResourceConfig({ resourceName: 'status', uri: STATUS, endpoint: '/edge', source: 'flow', ...extra });
  const prompt = (extra: Record<string, unknown> = {}) => parsePromptConfig({ promptName: 'summary', endpoint: '/edge', source: 'flow', ...extra });

  it('offers resources and prompts open to every caller of the endpoint', () => {
    assert.equal(isOffered(resource()), true);
    assert.equal(isOffered(resource({ uri: READINGS })), true);
    assert.equal(isOffered(resource({ source: 'static', text: 'ok' })), true);
    assert.equal(isOffered(prompt()), true);
    assert.equal(isOffered(prompt({ source: 'template', messages: [{ role: 'user', text: 'hi' }] })), true);
  });

  it('keeps back items limited to groups or scopes, those relayed for another site, and MCP Apps views', () => {
    assert.equal(isOffered(resource({ allowedGroups: 'ops' })), false);
    assert.equal(isOffered(resource({ requiredScopes: 'plant.read' })), false);
    assert.equal(isOffered(prompt({ allowedGroups: 'ops' })), false);
    assert.equal(isOffered(prompt({ requiredScopes: 'plant.read' })), false);
    assert.equal(isOffered(resourceOf(hubOf(STATUS, 'plant-b'), statusOffered(), { site: 'plant-b', name: STATUS }, undefined)), false);
    assert.equal(isOffered(promptOf('plant-b.summary', summaryOffered(), { site: 'plant-b', name: 'summary' }, undefined)), false);
    const view = parseAppViewConfig({ resourceName: 'chart', uri: 'ui://plant/chart', endpoint: '/edge', source: 'static', text: '<!DOCTYPE html><p>hi</p>' });
    assert.ok(view.appMeta);
    assert.equal(isOffered(view), false);
  });
});

describe("an edge's answers under the hub's URIs (qualifyContents, qualifyMessages)", () => {
  const qualify = (uri: string) => hubOf(uri);

  it("turns every content item's URI into the hub's, and leaves the rest as it was", () => {
    const blob = { uri: 'plant://line-1/image', mimeType: 'image/png', blob: 'iVBORw0KGgo=' };
    const noUri = { text: 'no uri' };
    const odd = { uri: 5, text: 'odd' };
    assert.deepEqual(qualifyContents([{ uri: STATUS, mimeType: 'application/json', text: '{}' }, blob, noUri, odd, 'text', null], qualify), [
      { uri: 'edge://plant-a/plant://line-1/status', mimeType: 'application/json', text: '{}' },
      { uri: 'edge://plant-a/plant://line-1/image', mimeType: 'image/png', blob: 'iVBORw0KGgo=' },
      noUri,
      odd,
      'text',
      null,
    ]);
    // Not a list: left for the hub's check of the answer to refuse, as it is.
    const notContents = { contents: [{ uri: STATUS, text: 'x' }] };
    assert.equal(qualifyContents(notContents, qualify), notContents);
    assert.equal(qualifyContents(undefined, qualify), undefined);
    // The edge's own answer is not changed in place.
    const own = [{ uri: STATUS, text: 'x' }];
    qualifyContents(own, qualify);
    assert.equal(own[0]!.uri, STATUS);
  });

  it('turns the URIs of resource links and embedded resources in prompt messages into the hub\'s, and nothing else', () => {
    const text = { role: 'user', content: { type: 'text', text: `see ${STATUS}` } };
    const image = { role: 'user', content: { type: 'image', data: 'AA==', mimeType: 'image/png', uri: STATUS } };
    const brokenLink = { role: 'user', content: { type: 'resource_link', name: 'status' } };
    const brokenEmbed = { role: 'user', content: { type: 'resource', resource: 'plant://x' } };
    const messages = [
      { role: 'user', content: { type: 'resource_link', uri: STATUS, name: 'status', mimeType: 'application/json' } },
      { role: 'assistant', content: { type: 'resource', resource: { uri: STATUS, mimeType: 'application/json', text: '{"ok":true}' } } },
      text,
      image,
      brokenLink,
      brokenEmbed,
      'hello',
    ];
    assert.deepEqual(qualifyMessages(messages, qualify), [
      { role: 'user', content: { type: 'resource_link', uri: 'edge://plant-a/plant://line-1/status', name: 'status', mimeType: 'application/json' } },
      { role: 'assistant', content: { type: 'resource', resource: { uri: 'edge://plant-a/plant://line-1/status', mimeType: 'application/json', text: '{"ok":true}' } } },
      text,
      image,
      brokenLink,
      brokenEmbed,
      'hello',
    ]);
    assert.equal((messages[1] as { content: { resource: { uri: string } } }).content.resource.uri, STATUS, 'not changed in place');
    const notMessages = { messages };
    assert.equal(qualifyMessages(notMessages, qualify), notMessages);
  });
});

// ---------------------------------------------------------------------------------------------
// A hub and an edge end to end on one MemoryStore.
// ---------------------------------------------------------------------------------------------

const id = (n: number) => n.toString(16).padStart(32, '0');
const settle = async () => {
  for (let turn = 0; turn < 4; turn += 1) await flush();
};

/** The edge endpoint's content, as its mcp-resource and mcp-prompt nodes would deploy it. */
function edgeContent(): ContentCatalog {
  const resource = (config: Record<string, unknown>) => parseResourceConfig({ endpoint: '/edge', source: 'flow', ...config });
  const prompt = (config: Record<string, unknown>) => parsePromptConfig({ endpoint: '/edge', source: 'flow', ...config });
  return new ContentCatalog(
    [
      resource({ resourceName: 'status', uri: STATUS, title: 'Line 1', mimeType: 'application/json', size: '120', audience: 'user', priority: '0.5', timeout: '20' }),
      resource({ resourceName: 'readings', uri: READINGS, mimeType: 'text/plain', completions: 'line: line-1, line-2', flowCompletions: 'kind', timeout: '10' }),
      resource({ resourceName: 'notes', uri: 'plant://notes', mimeType: 'text/plain', source: 'static', text: 'Shift notes' }),
      resource({ resourceName: 'secret', uri: 'plant://secret', allowedGroups: 'ops' }),
      resource({ resourceName: 'scoped', uri: 'plant://scoped', requiredScopes: 'plant.read' }),
      parseAppViewConfig({ resourceName: 'chart', uri: 'ui://plant/chart', endpoint: '/edge', source: 'static', text: '<!DOCTYPE html><p>hi</p>' }),
    ],
    [
      prompt({ promptName: 'summary', description: 'Sums up a line', arguments: [{ name: 'line', required: true, values: 'line-1, line-2' }, { name: 'shift', completion: 'flow' }] }),
      prompt({ promptName: 'greet', source: 'template', arguments: [{ name: 'name' }], messages: [{ role: 'user', text: 'Hello {{name}}' }] }),
      prompt({ promptName: 'ops-only', allowedGroups: 'ops' }),
      prompt({ promptName: 'scoped', requiredScopes: 'plant.read' }),
    ],
  );
}

describe('a hub serving an edge\'s resources and prompts, over the real MemoryStore', () => {
  let store: MemoryStore;
  let logger: ReturnType<typeof recordingLogger>;
  let hub: EdgeHub | undefined;
  let agent: EdgeAgent | undefined;
  let content: ContentCatalog;
  let edgeCalls: FlowCalls;
  /** What the edge's flow was handed: each read, prompt or completion under the hub's id. */
  let flow: Array<{ id: string; call: ContentCall }>;
  let delivered: Array<[string, unknown]>;
  let failedContent: Array<[string, string]>;
  let failedSites: Array<[string, string]>;
  let updates: Array<[string, string]>;
  let announced: any[];
  let sent: any[];
  let sentMessages: number;
  let changes: number;

  const openHub = (options: Partial<EdgeHubOptions> = {}) =>
    (hub = new EdgeHub({
      store,
      sites: ['plant-a', 'plant-b'],
      siteGroups: new Map([['plant-a', ['operators']]]),
      naming: '{site}.{tool}',
      maxPendingPerSite: 8,
      endpoint: '/hub',
      logger,
      onToolsChanged: () => (changes += 1),
      deliver: (executionId, result) => (delivered.push([executionId, result]), 'settled'),
      failContent: (executionId, message) => failedContent.push([executionId, message]),
      resourceUpdated: (site, uri) => updates.push([site, uri]),
      failSite: (site, message) => failedSites.push([site, message]),
      ask: () => 'unknown',
      ...options,
    }));
  const openAgent = (withContent = true) =>
    (agent = new EdgeAgent({
      store,
      site: 'plant-a',
      logger,
      catalog: () => new ToolCatalog([]),
      content: () => content,
      run: async () => undefined,
      ...(withContent ? { runContent: (call) => runRelayedContent('/edge', content, edgeCalls, call) } : {}),
      withdraw: (executionId) => edgeCalls.broker.cancel(executionId),
    }));
  const context = (what: Partial<ContentContext> = {}): ContentContext => ({ endpoint: '/hub', protocolVersion: '2026-07-28', requestId: 7, subject: 'alice', groups: ['operators'], session: 'not-for-the-edge', ...what });
  const resourceAt = (uri: string) => hub!.content().resources.find((resource) => resource.uri === uri)!;
  const promptNamed = (name: string) => hub!.content().prompts.find((prompt) => prompt.name === name)!;
  const request = (n: number) => ({ executionId: id(n), toolName: '', arguments: {} });
  const warnings = () => logger.lines.filter((line) => line.startsWith('warn '));
  const publishAnnounce = async (message: unknown) => {
    await store.publish(siteChannel('plant-a', 'announce'), JSON.stringify(message));
    await settle();
  };

  beforeEach(() => {
    store = new MemoryStore();
    logger = recordingLogger();
    content = edgeContent();
    flow = [];
    delivered = [];
    failedContent = [];
    failedSites = [];
    updates = [];
    announced = [];
    sent = [];
    sentMessages = 0;
    changes = 0;
    edgeCalls = new FlowCalls({
      path: '/edge',
      maxInFlight: 8,
      logger,
      execute: () => assert.fail('no tool is called in these tests'),
      executeContent: (executionId, call) => flow.push({ id: executionId, call }),
    });
    store.subscribe(siteChannel('plant-a', 'announce'), (text) => announced.push(JSON.parse(text)));
    // A hub batches the messages of one turn for an edge that reads batches: one JSON message a line.
    store.subscribe(siteChannel('plant-a', 'calls'), (text) => {
      sentMessages += 1;
      for (const line of text.split('\n')) sent.push(JSON.parse(line));
    });
  });
  afterEach(async () => {
    await agent?.close();
    agent = undefined;
    hub?.close();
    hub = undefined;
    edgeCalls.stopAll('test over');
    mock.timers.reset();
    await store.close();
  });

  it("lists the edge's offered resources and prompts under the hub's names, limited to the site's groups", async () => {
    openHub();
    openAgent();
    await settle();
    const { resources, prompts } = hub!.content();
    assert.deepEqual(resources.map((resource) => resource.uri).sort(), ['edge://plant-a/plant://line-1/status', 'edge://plant-a/plant://notes', 'edge://plant-a/sensors://{line}/readings/{kind}']);
    assert.deepEqual(prompts.map((prompt) => prompt.name).sort(), ['plant-a.greet', 'plant-a.summary']);
    for (const item of [...resources, ...prompts]) {
      assert.deepEqual(item.allowedGroups, ['operators'], `the hub's groups for the site: ${item.name}`);
      assert.equal(item.relay?.site, 'plant-a');
    }
    const status = resourceAt('edge://plant-a/plant://line-1/status');
    assert.deepEqual(status.listing, { uri: 'edge://plant-a/plant://line-1/status', name: 'status', title: 'Line 1', mimeType: 'application/json', annotations: { audience: ['user'], priority: 0.5 }, size: 120 });
    assert.deepEqual(status.relay, { site: 'plant-a', name: STATUS });
    assert.equal(status.timeoutMs, 20_000);
    const readings = resourceAt('edge://plant-a/sensors://{line}/readings/{kind}');
    assert.deepEqual(readings.relay, { site: 'plant-a', name: READINGS });
    assert.deepEqual([...readings.completions], [['line', ['line-1', 'line-2']]]);
    assert.deepEqual([...readings.flowCompletions], ['kind']);
    assert.equal(resourceAt('edge://plant-a/plant://notes').staticText, undefined);
    const summary = promptNamed('plant-a.summary');
    assert.deepEqual(summary.relay, { site: 'plant-a', name: 'summary' });
    assert.deepEqual([...summary.completions], [['line', ['line-1', 'line-2']]]);
    assert.deepEqual([...summary.flowCompletions], ['shift']);
    assert.equal(promptNamed('plant-a.greet').template, undefined, 'the edge renders its template prompt');
    assert.ok(changes >= 1);
    assert.deepEqual(warnings(), []);
  });

  it('does not announce items limited to groups or scopes, nor MCP Apps views', async () => {
    openAgent();
    await settle();
    const [announcement] = announced;
    assert.equal(announcement.t, 'announce');
    assert.deepEqual(announcement.resources.map((item: any) => item.listing.uri ?? item.listing.uriTemplate).sort(), [STATUS, 'plant://notes', READINGS].sort());
    assert.deepEqual(announcement.prompts.map((item: any) => item.listing.name).sort(), ['greet', 'summary']);
    // What the hub needs to serve them: the time limit, the lists, the flow's completions.
    const readings = announcement.resources.find((item: any) => item.listing.uriTemplate === READINGS);
    assert.deepEqual(readings, { listing: { uriTemplate: READINGS, name: 'readings', mimeType: 'text/plain' }, timeoutMs: 10_000, completions: { line: ['line-1', 'line-2'] }, flowCompletions: ['kind'] });
    assert.equal(JSON.stringify(announcement).includes('secret'), false);
    assert.equal(JSON.stringify(announcement).includes('ui://'), false);
    assert.equal(JSON.stringify(announcement).includes('ops-only'), false);
    assert.equal(JSON.stringify(announcement).includes('plant.read'), false);
  });

  it('leaves out (and says) each item it refuses, and serves the rest', async () => {
    openHub();
    await publishAnnounce({
      t: 'announce',
      site: 'plant-a',
      instance: 'i1',
      tools: [],
      resources: [
        statusOffered(),
        { listing: { uri: 'plant://bad-mime', name: 'bad', mimeType: 'not a mime type' }, timeoutMs: 1_000 },
        readingsOffered({ completions: { shift: ['day'] } }),
        statusOffered({ name: 'status-again' }),
        { listing: { uri: 'plant://notes', name: 'notes' }, timeoutMs: 1_000 },
      ],
      prompts: [summaryOffered(), { listing: { name: 'bad name' }, timeoutMs: 1_000 }, summaryOffered({ name: 'other' }, { flowCompletions: ['nobody'] })],
    });
    assert.deepEqual(hub!.content().resources.map((resource) => resource.uri).sort(), ['edge://plant-a/plant://line-1/status', 'edge://plant-a/plant://notes']);
    assert.equal(resourceAt('edge://plant-a/plant://line-1/status').name, 'status', 'the first of two for one URI is kept');
    assert.deepEqual(hub!.content().prompts.map((prompt) => prompt.name), ['plant-a.summary']);
    const said = warnings().join('\n');
    assert.match(said, /warn resource "plant:\/\/bad-mime" of site plant-a was refused: invalid MIME type not a mime type/);
    assert.match(said, /warn resource "sensors:\/\/\{line\}\/readings\/\{kind\}" of site plant-a was refused: completion list "shift" names no variable/);
    assert.match(said, /warn resource "plant:\/\/line-1\/status" of site plant-a was refused: it is announced twice/);
    assert.match(said, /warn prompt "bad name" of site plant-a was refused: invalid prompt name "plant-a.bad name"/);
    assert.match(said, /warn prompt "other" of site plant-a was refused: flow completion nobody names no argument/);
  });

  it("sends a read of a template under the edge's own URI, and hands back its contents under the hub's", async () => {
    openHub();
    openAgent();
    await settle();
    const readings = resourceAt('edge://plant-a/sensors://{line}/readings/{kind}');
    const uri = 'edge://plant-a/sensors://line-1/readings/temp';
    hub!.sendContent(request(1), { kind: 'resource-read', uri, variables: readings.template!.match(uri)!, context: context({ resource: readings.uri }), relay: readings.relay! });
    await settle();
    assert.deepEqual(sent, [
      {
        t: 'content',
        id: id(1),
        instance: agent!.instance,
        request: { kind: 'resource-read', uri: 'sensors://line-1/readings/temp' },
        caller: { subject: 'alice', groups: ['operators'] },
        hub: '/hub',
        protocolVersion: '2026-07-28',
        readsBatches: true,
      },
    ]);
    // The edge's flow gets the read under the hub's id, with the edge's own URI and template.
    assert.equal(flow.length, 1);
    assert.equal(flow[0]!.id, id(1));
    assert.deepEqual(flow[0]!.call, {
      kind: 'resource-read',
      uri: 'sensors://line-1/readings/temp',
      variables: { line: 'line-1', kind: 'temp' },
      context: { subject: 'alice', groups: ['operators'], endpoint: '/edge', resource: READINGS, protocolVersion: '2026-07-28', requestId: id(1), relayedFrom: '/hub' },
    });
    assert.equal(edgeCalls.settle(id(1), { result: [{ text: '21 °C' }, { uri: 'sensors://line-2/readings/temp', text: '19 °C' }] }), 'settled');
    await settle();
    assert.deepEqual(delivered, [
      [
        id(1),
        [
          { uri: 'edge://plant-a/sensors://line-1/readings/temp', mimeType: 'text/plain', text: '21 °C' },
          { uri: 'edge://plant-a/sensors://line-2/readings/temp', mimeType: 'text/plain', text: '19 °C' },
        ],
      ],
    ]);
    assert.deepEqual(failedContent, []);
  });

  it('reads a resource whose text is set in the edge editor without its flow, under the hub URI', async () => {
    openHub();
    openAgent();
    await settle();
    const notes = resourceAt('edge://plant-a/plant://notes');
    hub!.sendContent(request(2), { kind: 'resource-read', uri: notes.uri, variables: {}, context: context(), relay: notes.relay! });
    await settle();
    assert.deepEqual(sent.map((message) => message.request), [{ kind: 'resource-read', uri: 'plant://notes' }]);
    assert.deepEqual(flow, []);
    assert.deepEqual(delivered, [[id(2), [{ uri: 'edge://plant-a/plant://notes', mimeType: 'text/plain', text: 'Shift notes' }]]]);
  });

  it("gets a prompt by the edge's name and hands back its messages with resource URIs made the hub's", async () => {
    openHub();
    openAgent();
    await settle();
    const summary = promptNamed('plant-a.summary');
    hub!.sendContent(request(3), { kind: 'prompt-get', name: summary.name, arguments: { line: 'line-1' }, context: context({ prompt: summary.name }), relay: summary.relay! });
    await settle();
    assert.deepEqual(sent.map((message) => message.request), [{ kind: 'prompt-get', name: 'summary', arguments: { line: 'line-1' } }]);
    assert.deepEqual(flow.map((entry) => [entry.id, entry.call.kind, (entry.call as { name: string }).name, (entry.call as { arguments: unknown }).arguments]), [[id(3), 'prompt-get', 'summary', { line: 'line-1' }]]);
    edgeCalls.settle(id(3), {
      result: {
        messages: [
          { role: 'user', content: 'Summarise line-1' },
          { role: 'user', content: { type: 'resource_link', uri: STATUS, name: 'status' } },
          { role: 'assistant', content: { type: 'resource', resource: { uri: STATUS, text: '{"ok":true}' } } },
        ],
      },
    });
    await settle();
    assert.deepEqual(delivered, [
      [
        id(3),
        [
          { role: 'user', content: { type: 'text', text: 'Summarise line-1' } },
          { role: 'user', content: { type: 'resource_link', uri: 'edge://plant-a/plant://line-1/status', name: 'status' } },
          { role: 'assistant', content: { type: 'resource', resource: { uri: 'edge://plant-a/plant://line-1/status', text: '{"ok":true}' } } },
        ],
      ],
    ]);
    // A prompt whose messages are set in the edge's editor is rendered there.
    const greet = promptNamed('plant-a.greet');
    hub!.sendContent(request(4), { kind: 'prompt-get', name: greet.name, arguments: { name: 'Ada' }, context: context(), relay: greet.relay! });
    await settle();
    assert.equal(flow.length, 1);
    assert.deepEqual(delivered.at(-1), [id(4), [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }]]);
  });

  it("sends a flow completion for a template or prompt under the edge's names, and hands back its values", async () => {
    openHub();
    openAgent();
    await settle();
    const readings = resourceAt('edge://plant-a/sensors://{line}/readings/{kind}');
    hub!.sendContent(request(5), {
      kind: 'completion',
      ref: { type: 'ref/resource', uri: readings.uri },
      argument: { name: 'kind', value: 't' },
      arguments: { line: 'line-1' },
      context: context(),
      relay: readings.relay!,
    });
    const summary = promptNamed('plant-a.summary');
    hub!.sendContent(request(6), { kind: 'completion', ref: { type: 'ref/prompt', name: summary.name }, argument: { name: 'shift', value: '' }, context: context(), relay: summary.relay! });
    await settle();
    assert.equal(sentMessages, 1, 'both requests of one turn went in one message');
    assert.deepEqual(sent.map((message) => message.request), [
      { kind: 'completion', ref: { type: 'ref/resource', uri: READINGS }, argument: { name: 'kind', value: 't' }, arguments: { line: 'line-1' } },
      { kind: 'completion', ref: { type: 'ref/prompt', name: 'summary' }, argument: { name: 'shift', value: '' } },
    ]);
    assert.deepEqual(flow.map((entry) => [entry.id, (entry.call as { ref: unknown }).ref, entry.call.context.resource ?? entry.call.context.prompt]), [
      [id(5), { type: 'ref/resource', uri: READINGS }, READINGS],
      [id(6), { type: 'ref/prompt', name: 'summary' }, 'summary'],
    ]);
    edgeCalls.settle(id(5), { result: ['temp', 'pressure', 'tilt'] });
    edgeCalls.settle(id(6), { result: { values: ['day', 'night'], total: 2 } });
    await settle();
    assert.deepEqual(delivered, [
      [id(5), { values: ['temp', 'tilt'], total: 2, hasMore: false }],
      [id(6), { values: ['day', 'night'], total: 2, hasMore: false }],
    ]);
  });

  it("ends a read, prompt or completion the edge could not answer as an error naming the site, not as a result", async () => {
    openHub();
    openAgent();
    await settle();
    const summary = promptNamed('plant-a.summary');
    hub!.sendContent(request(7), { kind: 'prompt-get', name: summary.name, arguments: {}, context: context(), relay: summary.relay! });
    const status = resourceAt('edge://plant-a/plant://line-1/status');
    hub!.sendContent(request(8), { kind: 'resource-read', uri: status.uri, variables: {}, context: context(), relay: status.relay! });
    await settle();
    edgeCalls.settle(id(8), { error: { message: 'sensor offline' } });
    await settle();
    assert.deepEqual(failedContent, [
      [id(7), 'Site plant-a: Missing required argument "line" for prompt "summary".'],
      [id(8), 'Site plant-a: Resource plant://line-1/status failed: sensor offline'],
    ]);
    assert.deepEqual(delivered, []);
    // Redeployed on the edge since the hub last heard it: the edge says so.
    content = new ContentCatalog([], []);
    const notes = resourceAt('edge://plant-a/plant://notes');
    hub!.sendContent(request(9), { kind: 'resource-read', uri: notes.uri, variables: {}, context: context(), relay: notes.relay! });
    await settle();
    assert.deepEqual(failedContent.at(-1), [id(9), 'Site plant-a: Resource plant://notes is not offered by this edge any more (it was redeployed).']);
    // An answer's error is cut to 2000 characters on its way.
    hub!.sendContent(request(10), { kind: 'resource-read', uri: notes.uri, variables: {}, context: context(), relay: notes.relay! });
    await store.publish(siteChannel('plant-a', 'answers'), JSON.stringify({ t: 'answer', id: id(10), result: [{ uri: 'plant://notes', text: 'x' }], error: 'e'.repeat(3_000) }));
    await settle();
    assert.deepEqual(failedContent.at(-1), [id(10), `Site plant-a: ${'e'.repeat(2_000)}`]);
    assert.equal(delivered.length, 0, 'an answer with an error is no result, whatever else it carries');
  });

  it('ends content sent to an edge that runs none with that reason', async () => {
    openHub();
    openAgent(false);
    await settle();
    const status = resourceAt('edge://plant-a/plant://line-1/status');
    hub!.sendContent(request(11), { kind: 'resource-read', uri: status.uri, variables: {}, context: context(), relay: status.relay! });
    await settle();
    assert.deepEqual(failedContent, [[id(11), 'Site plant-a: this edge offers no resources or prompts']]);
  });

  it("refuses to send a read of a URI that is not one of the site's, or to a site that is not live", async () => {
    openHub();
    openAgent();
    await settle();
    const status = resourceAt('edge://plant-a/plant://line-1/status');
    assert.throws(() => hub!.sendContent(request(12), { kind: 'resource-read', uri: 'edge://plant-b/plant://line-1/status', variables: {}, context: context(), relay: status.relay! }), /edge:\/\/plant-b\/plant:\/\/line-1\/status is not a URI of site plant-a/);
    assert.throws(() => hub!.sendContent(request(13), { kind: 'resource-read', uri: 'edge://plant-b/x://y', variables: {}, context: context(), relay: { site: 'plant-b', name: 'x://y' } }), /site plant-b is not connected/);
    await settle();
    assert.deepEqual(sent, []);
  });

  it('ends a read pending on an edge that restarted at once, as an error naming the site, and counts content against Pending per site', async () => {
    openHub({ maxPendingPerSite: 2 });
    openAgent();
    await settle();
    const status = resourceAt('edge://plant-a/plant://line-1/status');
    const read = (n: number) => hub!.sendContent(request(n), { kind: 'resource-read', uri: status.uri, variables: {}, context: context(), relay: status.relay! });
    read(20);
    read(21);
    assert.throws(() => read(22), /site plant-a already has 2 calls pending/);
    await settle();
    assert.deepEqual(flow.map((handed) => handed.id), [id(20), id(21)]);
    // A new instance of the site announces itself: the one the reads went to will never answer them.
    await publishAnnounce({ ...announced.at(-1), instance: 'a-new-instance' });
    assert.deepEqual(failedContent.map(([executionId]) => executionId), [id(20), id(21)]);
    assert.match(failedContent[0]![1], /^Site plant-a restarted before answering/);
    // A late answer from the instance before is dropped, and the slots are free again.
    edgeCalls.settle(id(20), { result: 'late' });
    await settle();
    assert.deepEqual(delivered, []);
    read(23);
    read(24);
  });

  it("relays the current instance's resource updates under the hub URI, at most 50 a second", async () => {
    openHub();
    openAgent();
    await settle();
    assert.equal(agent!.resourceUpdated('sensors://line-1/readings/temp'), true);
    assert.equal(agent!.resourceUpdated(STATUS), true);
    // Not one it offers: not said.
    assert.equal(agent!.resourceUpdated('plant://secret'), false);
    assert.equal(agent!.resourceUpdated('plant://nowhere'), false);
    await settle();
    assert.deepEqual(updates, [
      ['plant-a', 'edge://plant-a/sensors://line-1/readings/temp'],
      ['plant-a', 'edge://plant-a/plant://line-1/status'],
    ]);
    // Another instance of the site (a second edge, or one that stopped) is not listened to.
    await publishAnnounce({ t: 'updated', site: 'plant-a', instance: 'someone-else', uri: STATUS });
    // Nor another site on this site's channel.
    await publishAnnounce({ t: 'updated', site: 'plant-b', instance: agent!.instance, uri: STATUS });
    assert.equal(updates.length, 2);
    assert.deepEqual(warnings().map((line) => line.includes('names site "plant-b" on the channel of site plant-a')), [true]);

    // A flood within one second: 50 go through, the rest are dropped and said once.
    mock.timers.enable({ apis: ['Date'], now: Math.floor(Date.now() / 1000) * 1000 + 1_000 });
    updates = [];
    for (let n = 0; n < 60; n += 1) agent!.resourceUpdated(STATUS);
    await settle();
    assert.equal(updates.length, 50);
    const floods = warnings().filter((line) => line.includes('sends more than 50 resource updates a second; the rest were dropped'));
    assert.equal(floods.length, 1, warnings().join('\n'));
    assert.match(floods[0]!, /^warn site plant-a sends more than 50/);
    // The next second starts afresh.
    mock.timers.tick(1_000);
    agent!.resourceUpdated(STATUS);
    await settle();
    assert.equal(updates.length, 51);
  });

  it('withdraws the site\'s content when it says goodbye', async () => {
    openHub();
    openAgent();
    await settle();
    assert.equal(hub!.content().resources.length, 3);
    const before = changes;
    await agent!.close();
    agent = undefined;
    await settle();
    assert.deepEqual(hub!.content(), { resources: [], prompts: [] });
    assert.ok(changes > before);
    assert.deepEqual(failedSites.map(([site]) => site), ['plant-a']);
    // Its updates are no longer heard either.
    await publishAnnounce({ t: 'updated', site: 'plant-a', instance: 'gone', uri: STATUS });
    assert.deepEqual(updates, []);
  });

  // Found while writing these tests: see the report. The edge's own parser takes a priority such as
  // 0.0000001, whose JSON (and String) form is 1e-7; the hub turns it back into text and its check
  // (digits and a dot only) refuses it, so the edge serves a resource that its hub refuses.
  it('serves an edge resource whose priority is below 0.000001 (JSON writes it with an exponent)', async () => {
    content = new ContentCatalog([parseResourceConfig({ resourceName: 'faint', uri: 'plant://faint', endpoint: '/edge', source: 'flow', priority: '0.0000001' })], []);
    openHub();
    openAgent();
    await settle();
    assert.deepEqual(warnings(), []);
    assert.deepEqual(hub!.content().resources.map((resource) => [resource.uri, resource.listing.annotations?.priority]), [['edge://plant-a/plant://faint', 1e-7]]);
  });

  // Found while writing these tests: see the report. The protocol takes a listing addressed by
  // its `uriTemplate` when its `uri` is there but not text; the hub picks the address by `'uri' in
  // listing` and builds a fixed resource `edge://plant-a/null` whose relay name is null.
  it('never serves a resource under an address the edge did not give as text', async () => {
    openHub();
    await publishAnnounce({ t: 'announce', site: 'plant-a', instance: 'i1', tools: [], resources: [{ listing: { name: 'readings', uri: null, uriTemplate: 'sensors://{line}/readings' }, timeoutMs: 1_000 }] });
    const served = hub!.content().resources;
    assert.deepEqual(served.filter((resource) => typeof resource.relay?.name !== 'string').map((resource) => resource.uri), []);
    assert.equal(served.some((resource) => resource.uri === 'edge://plant-a/null'), false);
  });
});

describe("a hub endpoint's own content with its sites' (EndpointEdges.withEdgeContent)", () => {
  let store: MemoryStore;
  let logger: ReturnType<typeof recordingLogger>;
  let edges: EndpointEdges;

  const local = (config: Record<string, unknown>): ResourceDefinition => parseResourceConfig({ endpoint: '/hub', source: 'static', text: 'here', ...config });
  const localPrompt = (name: string): PromptDefinition => parsePromptConfig({ promptName: name, endpoint: '/hub', messages: [{ role: 'user', text: 'local' }] });
  const announce = async (message: Record<string, unknown>) => {
    await store.publish(siteChannel('plant-a', 'announce'), JSON.stringify({ site: 'plant-a', instance: 'i1', ...message }));
    for (let turn = 0; turn < 3; turn += 1) await flush();
  };
  const build = (declared: ContentCatalog | undefined) => {
    const said = new Set<string>();
    const catalog = edges.withEdgeContent(declared, said);
    edges.endCatalog(said);
    return catalog;
  };
  const warnings = () => logger.lines.filter((line) => line.startsWith('warn '));

  beforeEach(() => {
    store = new MemoryStore();
    logger = recordingLogger();
    edges = new EndpointEdges({ settings: parseFlowServerConfig({ serverName: 'hub', path: '/hub', access: 'local', hubSites: 'plant-a' }), store, logger, onToolsChanged: () => undefined });
    // The endpoint is only told which hub relays for it; nothing here reaches it.
    edges.open({ relayTo: () => undefined } as unknown as McpEndpoint);
  });
  afterEach(async () => {
    await edges.close();
    await store.close();
  });

  it("adds the live sites' items, keeps the declared ones where they clash, and says each clash once while it lasts", async () => {
    const declared = new ContentCatalog([local({ resourceName: 'mine', uri: 'edge://plant-a/plant://line-1/status' }), local({ resourceName: 'own', uri: 'plant://own' })], [localPrompt('plant-a.summary')]);
    assert.equal(build(declared), declared, 'without live sites the declared catalog is served as it is');
    assert.equal(build(undefined), ContentCatalog.empty);

    const edgeItems = { tools: [], resources: [statusOffered(), { listing: { uri: 'plant://notes', name: 'notes' }, timeoutMs: 1_000 }], prompts: [summaryOffered(), { listing: { name: 'greet' }, timeoutMs: 1_000 }] };
    await announce({ t: 'announce', ...edgeItems });
    const merged = build(declared)!;
    const status = merged.findResource('edge://plant-a/plant://line-1/status')!.resource;
    assert.equal(status.name, 'mine');
    assert.equal(status.relay, undefined, 'the declared resource wins its URI');
    assert.deepEqual(merged.findResource('edge://plant-a/plant://notes')?.resource.relay, { site: 'plant-a', name: 'plant://notes' });
    assert.equal(merged.findPrompt('plant-a.summary')?.relay, undefined, 'the declared prompt wins its name');
    assert.deepEqual(merged.findPrompt('plant-a.greet')?.relay, { site: 'plant-a', name: 'greet' });
    assert.ok(merged.findResource('plant://own'));
    assert.equal(merged.resourceCount, 3);
    assert.equal(merged.promptCount, 2);
    assert.deepEqual(warnings(), [
      'warn edge resource edge://plant-a/plant://line-1/status of site plant-a was refused on /hub: one of that URI is declared here',
      'warn edge prompt plant-a.summary of site plant-a was refused on /hub: one of that name is declared here',
    ]);
    // The next build (every heartbeat may cause one) says nothing new.
    build(declared);
    assert.equal(warnings().length, 2);
    // Without a declared catalog the site's items are all there is.
    const edgeOnly = build(undefined)!;
    assert.equal(edgeOnly.findResource('edge://plant-a/plant://line-1/status')?.resource.relay?.site, 'plant-a');
    assert.equal(edgeOnly.resourceCount, 2);
    // The clash ended with that build: when it comes back it is said again.
    build(declared);
    assert.equal(warnings().length, 4);

    await announce({ t: 'bye' });
    assert.equal(build(declared), declared);
    const gone = build(undefined)!;
    assert.equal(gone.isEmpty, true, 'an empty catalog, not undefined, once the last site left');
  });
});
