import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalAccess } from '../../lib/access/local-access.js';
import { silentLogger } from '../../lib/core/logger.js';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import type { ContentCall, ContentFinished } from '../../lib/mcp/content/content-types.js';
import { parsePromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { parseResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { McpEndpoint } from '../../lib/mcp/endpoint/mcp-endpoint.js';
import { sdkUse } from '../support/sdk-use.js';
import { rawAnswer, serveEndpoint, stopServed, type SentRequest, type ServedEndpoint } from '../support/served-endpoint.js';

// Plain resources/read and prompts/get are served without the SDK. Two McpEndpoints with the same
// resources, prompts and "flow", one serving such requests directly and one sending everything
// through the SDK, get the same requests in both eras; every answer (status, headers, bytes), every
// message the flow gets and every telemetry event must be the same. The SDK's use is counted
// (sdk-use.ts: spies, not stand-ins), so the test also knows which path each request took.

/** Times the SDK was used for a request, on either era's path. */
const sdkUses = () => sdkUse.transportRuns + sdkUse.serverConnects;

/** What the flow does with each read and prompt: answer, fail, answer badly, stay silent, hold or ask. */
function flow(endpoint: () => McpEndpoint, seen: ContentCall[]) {
  const asked = new Set<string>();
  return (executionId: string, call: ContentCall) => {
    seen.push(call);
    const settle = (answer: { result?: unknown; error?: unknown }) => setImmediate(() => endpoint().settle(executionId, answer));
    const what = call.kind === 'resource-read' ? (call.variables['id'] ?? call.uri) : call.kind === 'prompt-get' ? (call.arguments['who'] ?? call.name) : '';
    if (call.kind === 'completion') return settle({ result: [] });
    switch (what) {
      case 'fail':
        return settle({ error: { message: 'the database is down' } });
      case 'bad':
        return settle({ result: 42 });
      case 'blob':
        return settle({ result: Buffer.from('binary') });
      case 'silent':
        return;
      case 'hold':
        return setTimeout(() => endpoint().settle(executionId, { result: 'held' }), 300);
      case 'asks':
        if (!asked.has(executionId) && call.input === undefined) {
          asked.add(executionId);
          return void setImmediate(() => endpoint().ask(executionId, { requests: { dirs: { method: 'roots/list', params: {} } }, state: { n: 1 } }));
        }
        return settle({ result: call.kind === 'resource-read' ? `told ${call.input?.inputError?.message ?? 'nothing'}` : [{ role: 'user', content: 'told' }] });
    }
    if (call.kind === 'resource-read') return settle({ result: call.uri === 'demo://many' ? [{ text: 'one' }, { blob: 'AAAA', mimeType: 'image/png', uri: 'demo://other' }] : `read ${what}` });
    return settle({ result: [{ role: 'user', content: `hi ${what}` }, { role: 'assistant', content: { type: 'text', text: 'ok' } }] });
  };
}

const CONTENT = () =>
  new ContentCatalog(
    [
      parseResourceConfig({ resourceName: 'fixed', uri: 'demo://fixed', endpoint: '/mcp', timeout: 1 }),
      parseResourceConfig({ resourceName: 'many', uri: 'demo://many', endpoint: '/mcp', mimeType: 'text/plain' }),
      parseResourceConfig({ resourceName: 'static', uri: 'demo://static', endpoint: '/mcp', source: 'static', text: 'Static text', mimeType: 'text/markdown' }),
      parseResourceConfig({ resourceName: 'items', uri: 'demo://items/{id}', endpoint: '/mcp', timeout: 1, completions: 'id: a, b' }),
      parseResourceConfig({ resourceName: 'docs', uri: 'docs://{name}', endpoint: '/mcp', source: 'static', text: 'doc {{name}}' }),
      parseResourceConfig({ resourceName: 'pair', uri: 'demo://pair/{a}/{b}', endpoint: '/mcp', source: 'static', text: '{{a}} and {{b}}' }),
    ],
    [
      parsePromptConfig({ promptName: 'flowed', endpoint: '/mcp', source: 'flow', arguments: [{ name: 'who', required: true }], timeout: 1, description: 'A prompt the flow answers' }),
      parsePromptConfig({ promptName: 'open', endpoint: '/mcp', source: 'flow', arguments: [{ name: 'who' }] }),
      parsePromptConfig({ promptName: 'greet', endpoint: '/mcp', arguments: [{ name: 'who', required: true }, { name: 'tone' }], messages: [{ role: 'user', text: 'Hello {{who}}' }, { role: 'assistant', text: 'Hi ({{tone}})' }] }),
    ],
  );

interface Served extends ServedEndpoint {
  events: ContentFinished[];
  calls: ContentCall[];
}

async function serve(directAnswers: boolean): Promise<Served> {
  const events: ContentFinished[] = [];
  const calls: ContentCall[] = [];
  const endpoint: McpEndpoint = new McpEndpoint({
    serverName: 'direct-content-test',
    path: '/mcp',
    access: createLocalAccess(),
    maxInFlight: 2,
    logger: silentLogger,
    directAnswers,
    execute: () => undefined,
    executeContent: flow(() => endpoint, calls),
    onContentFinished: (event) => events.push(event),
    measureContentResponses: () => true,
  });
  endpoint.setContent(CONTENT());
  return { ...(await serveEndpoint(endpoint)), events, calls };
}

const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { roots: {} },
};

type Era = 'legacy' | 'modern';
type Sent = SentRequest;

/** A request as a client of `era` sends it: on 2026-07-28 the envelope in `_meta`, the method and name repeated in headers. */
function request(era: Era, id: string | number, method: string, params: Record<string, unknown>, extraMeta?: Record<string, unknown>): Sent {
  if (era === 'legacy') return { body: { jsonrpc: '2.0', id, method, params: extraMeta ? { ...params, _meta: extraMeta } : params }, headers: LEGACY_HEADERS };
  const name = (params['uri'] ?? params['name']) as string;
  return {
    body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...MODERN_META, ...extraMeta } } },
    headers: { ...LEGACY_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}) },
  };
}
const read = (era: Era, id: string | number, uri: unknown, meta?: Record<string, unknown>) => request(era, id, 'resources/read', { uri }, meta);
const prompt = (era: Era, id: string | number, name: string, args?: unknown, meta?: Record<string, unknown>) => request(era, id, 'prompts/get', { name, ...(args !== undefined ? { arguments: args } : {}) }, meta);

/** A sealed requestState differs by nature between two endpoints (its key, its time): compared by shape. */
const withoutSealedState = (answer: string) => answer.replace(/"requestState":"[^"]+"/, '"requestState":"…"');
/** Telemetry without what differs by nature between two runs. */
const comparable = (event: ContentFinished) => ({ ...event, durationMs: 0 });

let direct: Served;
let viaSdk: Served;

before(async () => ([direct, viaSdk] = await Promise.all([serve(true), serve(false)])));
after(() => stopServed([direct, viaSdk]));

/** Sends the same request to both endpoints: both answers, how often each used the SDK, and what the flow and telemetry saw. */
async function both(sent: Sent) {
  const before = { events: [direct.events.length, viaSdk.events.length], calls: [direct.calls.length, viaSdk.calls.length] };
  let uses = sdkUses();
  const fast = await rawAnswer(direct.port, sent);
  const fastUses = sdkUses() - uses;
  uses = sdkUses();
  const sdk = await rawAnswer(viaSdk.port, sent);
  const sdkUsesCount = sdkUses() - uses;
  return {
    fast,
    sdk,
    fastUses,
    sdkUses: sdkUsesCount,
    fastEvents: direct.events.slice(before.events[0]).map(comparable),
    sdkEvents: viaSdk.events.slice(before.events[1]).map(comparable),
    fastCalls: direct.calls.slice(before.calls[0]),
    sdkCalls: viaSdk.calls.slice(before.calls[1]),
  };
}

for (const era of ['legacy', 'modern'] as const) {
  describe(`plain ${era === 'legacy' ? '2025-era' : '2026-07-28'} reads and prompts served directly answer exactly as through the SDK`, () => {
    const cases: Array<[string, Sent]> = [
      ['a fixed URI the flow answers', read(era, 1, 'demo://fixed')],
      ['a string id', read(era, 'r-2', 'demo://fixed')],
      ['several contents, a blob with a URI and MIME type of its own', read(era, 3, 'demo://many')],
      ['a fixed URI with the editor’s text and MIME type', read(era, 4, 'demo://static')],
      ['a template URI the flow answers (its variables to the flow)', read(era, 5, 'demo://items/42')],
      ['a template URI with a percent-encoded value', read(era, 6, 'docs://a%20b')],
      ['a template of two variables', read(era, 7, 'demo://pair/x/y')],
      ['a flow that answers with a Buffer', read(era, 8, 'demo://items/blob')],
      ['an unknown resource', read(era, 9, 'demo://nothing')],
      ['a template value that decodes to a dot segment (no resource)', read(era, 10, 'docs://%2E%2E')],
      ['a flow that fails', read(era, 11, 'demo://items/fail')],
      ['a flow that answers with no valid contents', read(era, 12, 'demo://items/bad')],
      ['a flow that asks the client', read(era, 13, 'demo://items/asks')],
      ['a prompt the flow answers', prompt(era, 20, 'flowed', { who: 'Ada' })],
      ['a prompt with a string id and a description', prompt(era, 'p-21', 'flowed', { who: 'Bo' })],
      ['a prompt from the editor’s template', prompt(era, 22, 'greet', { who: 'Ada', tone: 'warm' })],
      ['a template prompt without an optional argument', prompt(era, 23, 'greet', { who: 'Ada' })],
      ['a prompt without arguments', prompt(era, 24, 'open')],
      ['a missing required argument', prompt(era, 25, 'flowed', {})],
      ['an argument that is not a string', prompt(era, 26, 'greet', { who: 5 })],
      ['an unknown prompt', prompt(era, 27, 'nope', {})],
      ['a prompt whose flow fails', prompt(era, 28, 'flowed', { who: 'fail' })],
      ['a prompt whose flow answers with no messages', prompt(era, 29, 'flowed', { who: 'bad' })],
      ['a prompt whose flow asks the client', prompt(era, 30, 'open', { who: 'asks' })],
      ['a _meta of the client’s own', read(era, 31, 'demo://fixed', { 'claudecode/x': 1 })],
      ['a progress token (Codex sends one with every request; a read reports no progress)', read(era, 32, 'demo://fixed', { progressToken: 'p' })],
      ['a prompt with a progress token', prompt(era, 33, 'greet', { who: 'Ada' }, { progressToken: 7 })],
    ];
    for (const [label, sent] of cases) {
      it(label, async () => {
        const answers = await both(sent);
        assert.equal(answers.fastUses, 0, 'served without the SDK');
        assert.equal(answers.sdkUses, 1, 'the comparison endpoint used the SDK');
        assert.equal(withoutSealedState(answers.fast), withoutSealedState(answers.sdk));
        assert.match(answers.fast, /^200\n/);
        assert.deepEqual(answers.fastEvents, answers.sdkEvents);
        assert.equal(answers.fastEvents.length, 1, 'one telemetry event per request');
        assert.deepEqual(answers.fastCalls, answers.sdkCalls, 'the flow got the same messages');
        if (/asks/.test(label) && era === 'modern') assert.match(answers.fast, /"resultType":"input_required"/);
      });
    }

    it('a flow that never answers: the time limit, as the same JSON-RPC error', async () => {
      const answers = await both(read(era, 40, 'demo://items/silent'));
      assert.equal(answers.fastUses, 0);
      assert.equal(answers.fast, answers.sdk);
      assert.match(answers.fast, /was not answered within 1 s/);
      assert.deepEqual(answers.fastEvents, answers.sdkEvents);
      assert.equal(answers.fastEvents[0]?.outcome, 'timeout');
    });

    it('a full broker: -32000 Server busy on both paths, counted as busy', async () => {
      const answers: string[] = [];
      for (const served of [direct, viaSdk]) {
        const held = [rawAnswer(served.port, read(era, 41, 'demo://items/hold')), rawAnswer(served.port, read(era, 42, 'demo://items/hold'))];
        await new Promise((resolve) => setTimeout(resolve, 100));
        answers.push(await rawAnswer(served.port, prompt(era, 43, 'flowed', { who: 'x' })));
        await Promise.all(held);
        assert.deepEqual(served.events.slice(-3).map((event) => event.outcome).sort(), ['busy', 'success', 'success']);
      }
      assert.equal(answers[0], answers[1]);
      assert.match(answers[0]!, /"code":-32000/);
    });

    const others: Array<[string, Sent]> = [
      ['a progress token of another type', read(era, 50, 'demo://fixed', { progressToken: 0.5 })],
      ['a key besides uri', request(era, 51, 'resources/read', { uri: 'demo://fixed', extra: 1 })],
      ['a URI that is not a string', read(era, 52, 7)],
      ['prompt arguments that are not an object', prompt(era, 53, 'greet', ['Ada'])],
      ['a fractional id', read(era, 54.5, 'demo://fixed')],
    ];
    for (const [label, sent] of others) {
      it(`left to the SDK, with the same answer: ${label}`, async () => {
        const answers = await both(sent);
        assert.equal(answers.fastUses, answers.sdkUses, 'took the same path as without direct answers');
        assert.equal(answers.fast, answers.sdk);
        assert.deepEqual(answers.fastEvents, answers.sdkEvents);
      });
    }
  });
}

describe('requests of one era only that the direct path leaves to the SDK', () => {
  const modernRead = read('modern', 60, 'demo://fixed');
  const others: Array<[string, Sent]> = [
    ['2025: no revision header', { ...read('legacy', 61, 'demo://fixed'), headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }],
    ['2025: Accept without event streams', { ...read('legacy', 62, 'demo://fixed'), headers: { ...LEGACY_HEADERS, accept: 'application/json' } }],
    ['2026-07-28: an Mcp-Name naming another URI', { ...modernRead, headers: { ...modernRead.headers, 'mcp-name': 'demo://static' } }],
    ['2026-07-28: no Mcp-Name', { ...modernRead, headers: { ...LEGACY_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'resources/read' } }],
    ['2026-07-28: a log level in the envelope', read('modern', 63, 'demo://fixed', { 'io.modelcontextprotocol/logLevel': 'info' })],
    ['2026-07-28: an invalid envelope', read('modern', 64, 'demo://fixed', { 'io.modelcontextprotocol/clientInfo': 'me' })],
    ['2026-07-28: a requestState of an earlier round', request('modern', 65, 'resources/read', { uri: 'demo://fixed', requestState: 'x' })],
  ];
  for (const [label, sent] of others) {
    it(label, async () => {
      const answers = await both(sent);
      assert.equal(answers.fastUses, answers.sdkUses, 'took the same path as without direct answers');
      assert.equal(answers.fast, answers.sdk);
      assert.deepEqual(answers.fastEvents, answers.sdkEvents);
    });
  }
});

describe('a deploy that changes resources but not capabilities', () => {
  it('is read on both paths at once (the shared 2025-era server reads the deploy’s catalog now)', async () => {
    const next = () =>
      new ContentCatalog(
        [parseResourceConfig({ resourceName: 'fresh', uri: 'demo://fresh', endpoint: '/mcp', source: 'static', text: 'new' })],
        [parsePromptConfig({ promptName: 'fresh', endpoint: '/mcp', messages: [{ role: 'user', text: 'new' }] })],
      );
    direct.endpoint.setContent(next());
    viaSdk.endpoint.setContent(next());
    try {
      for (const era of ['legacy', 'modern'] as const) {
        const answers = await both(read(era, 70, 'demo://fresh'));
        assert.equal(answers.fast, answers.sdk);
        assert.match(answers.sdk, /"text":"new"/);
      }
    } finally {
      direct.endpoint.setContent(CONTENT());
      viaSdk.endpoint.setContent(CONTENT());
    }
  });
});
