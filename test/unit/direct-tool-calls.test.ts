import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalAccess } from '../../lib/access/local-access.js';
import { silentLogger } from '../../lib/core/logger.js';
import type { ExecutionRequest } from '../../lib/execution/broker.js';
import type { CallFinished } from '../../lib/mcp/calls/call-types.js';
import { McpEndpoint } from '../../lib/mcp/endpoint/mcp-endpoint.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { sdkUse } from '../support/sdk-use.js';
import { modernMeta, stopServed } from '../support/served-endpoint.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';

// Plain 2025-era tool calls are served without the SDK. Two McpEndpoints with the same tools and
// the same "flow", one serving such calls directly and one sending everything through the SDK, get
// the same requests; every answer (status, media type, JSON) and every telemetry event must be the
// same. The SDK's use is counted (sdk-use.ts: spies, not stand-ins), so the test also knows which
// path each request took.

/** What the flow does with each tool: answer (at once, or after a while), fail, stay silent or ask. */
function flow(endpoint: () => McpEndpoint) {
  const asked = new Set<string>();
  return (request: ExecutionRequest) => {
    const args = request.arguments as Record<string, unknown>;
    const settle = (answer: { result?: unknown; error?: unknown }) => setImmediate(() => endpoint().settle(request.executionId, answer));
    switch (request.toolName) {
      case 'echo':
        return settle({ result: args['text'] });
      case 'full':
        return settle({ result: { content: [{ type: 'text', text: 'a' }], isError: false, _meta: { note: 1 }, extra: 'kept?' } });
      case 'sum':
        return settle({ result: args['bad'] ? { sum: Number.NaN } : { sum: 3 } });
      case 'scalar':
        return settle({ result: { content: [{ type: 'text', text: '7' }], structuredContent: 7 } });
      case 'bare-scalar':
        // A non-object structured content and no text block: the SDK's result projection adds the text.
        return settle({ result: { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], structuredContent: args['list'] ? [1, 'two'] : 'plain' } });
      case 'fails':
        return settle({ error: { message: 'the database is down' } });
      case 'bigint':
        return settle({ result: { count: 10n } });
      case 'reports':
        // Two progress reports (the second with a total and a message), then the answer.
        return setImmediate(() => {
          endpoint().progress(request.executionId, { progress: 1 });
          endpoint().progress(request.executionId, { progress: 2, total: 4, message: 'half way' });
          setTimeout(() => endpoint().settle(request.executionId, { result: 'reported' }), 5);
        });
      case 'silent':
        return;
      case 'hold':
        return setTimeout(() => endpoint().settle(request.executionId, { result: 'held' }), 300);
      case 'asks':
        // Asks once although the tool declares nothing; answers with what it was told.
        if (!asked.has(request.executionId) && request.input === undefined) {
          asked.add(request.executionId);
          return void setImmediate(() => endpoint().ask(request.executionId, { requests: { ok: { method: 'roots/list', params: {} } }, state: { n: 1 } }));
        }
        return settle({ result: { told: request.input?.inputError?.message ?? 'nothing', state: request.input?.state } });
    }
  };
}

const ANY = '{"type":"object"}';
const TOOLS = () =>
  new ToolCatalog([
    parseToolConfig({ toolName: 'echo', endpoint: '/mcp', inputSchema: '{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}' }),
    parseToolConfig({ toolName: 'full', endpoint: '/mcp', inputSchema: ANY }),
    parseToolConfig({ toolName: 'sum', endpoint: '/mcp', inputSchema: ANY, outputSchema: '{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}' }),
    parseToolConfig({ toolName: 'scalar', endpoint: '/mcp', inputSchema: ANY }),
    parseToolConfig({ toolName: 'bare-scalar', endpoint: '/mcp', inputSchema: ANY }),
    parseToolConfig({ toolName: 'fails', endpoint: '/mcp', inputSchema: ANY }),
    parseToolConfig({ toolName: 'bigint', endpoint: '/mcp', inputSchema: ANY }),
    parseToolConfig({ toolName: 'reports', endpoint: '/mcp', inputSchema: ANY }),
    parseToolConfig({ toolName: 'silent', endpoint: '/mcp', inputSchema: ANY, timeout: 1 }),
    parseToolConfig({ toolName: 'hold', endpoint: '/mcp', inputSchema: ANY }),
    parseToolConfig({ toolName: 'asks', endpoint: '/mcp', inputSchema: ANY }),
  ]);

interface Served {
  endpoint: McpEndpoint;
  server: Server;
  port: number;
  events: CallFinished[];
  /** Why calls the flow was working on ended without their answer (mcp-tool-cancel). */
  abandoned: string[];
}

async function serve(directAnswers: boolean): Promise<Served> {
  const events: CallFinished[] = [];
  const served = { abandoned: [] as string[] } as Served;
  served.endpoint = new McpEndpoint({
    serverName: 'direct-test',
    path: '/mcp',
    access: createLocalAccess(),
    maxInFlight: 2,
    logger: silentLogger,
    directAnswers,
    onCallFinished: (event) => events.push(event),
    measureResponses: () => true,
    execute: flow(() => served.endpoint),
    onAbandoned: (_executionId, reason) => served.abandoned.push(reason),
  });
  served.endpoint.setCatalog(TOOLS());
  served.server = createServer((req, res) => void served.endpoint.handle(req, res));
  await new Promise<void>((resolve) => served.server.listen(0, '127.0.0.1', resolve));
  served.port = (served.server.address() as AddressInfo).port;
  served.events = events;
  return served;
}

const MODERN_META = modernMeta({ roots: {} });

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

function post(port: number, body: unknown, headers: Record<string, string> = HEADERS): Promise<{ status: number; type: string | undefined; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], json: messageIn(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The JSON-RPC message of a body: the JSON itself, or the last `data:` line of an event stream. */
function messageIn(text: string): unknown {
  if (text === '' || text.startsWith('{')) return text ? JSON.parse(text) : undefined;
  const data = text.split('\n').filter((line) => line.startsWith('data: {'));
  return JSON.parse(data[data.length - 1]!.slice(6));
}

const call = (id: string | number, name: string, args?: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, ...(args !== undefined ? { arguments: args } : {}), ...extra },
});

/** Telemetry without what differs by nature between two runs. */
const comparable = (event: CallFinished) => ({ ...event, durationMs: 0 });

let direct: Served;
let viaSdk: Served;

before(async () => {
  [direct, viaSdk] = await Promise.all([serve(true), serve(false)]);
});
after(() => stopServed([direct, viaSdk]));

/** Sends the same request to both endpoints; returns both answers, how often the SDK's transport ran for each, and the events. */
async function both(body: unknown, headers?: Record<string, string>) {
  const eventsBefore = [direct.events.length, viaSdk.events.length];
  let runs = sdkUse.transportRuns;
  const fast = await post(direct.port, body, headers);
  const fastRuns = sdkUse.transportRuns - runs;
  runs = sdkUse.transportRuns;
  const sdk = await post(viaSdk.port, body, headers);
  const sdkRuns = sdkUse.transportRuns - runs;
  return { fast, sdk, fastRuns, sdkRuns, fastEvents: direct.events.slice(eventsBefore[0]).map(comparable), sdkEvents: viaSdk.events.slice(eventsBefore[1]).map(comparable) };
}

describe('plain 2025-era tool calls served directly answer exactly as through the SDK', () => {
  const cases: Array<[string, unknown]> = [
    ['a string answer, integer id', call(1, 'echo', { text: 'hi' })],
    ['a string id', call('abc-1', 'echo', { text: 'hi' })],
    ['a _meta of the client’s own', call(2, 'echo', { text: 'hi' }, { _meta: { 'claudecode/toolUseId': 'x' } })],
    ['a full result the flow built, with keys of its own', call(3, 'full')],
    ['structured content checked against the output schema', call(4, 'sum')],
    ['structured content whose JSON breaks the output schema', call(5, 'sum', { bad: true })],
    ['a result with a non-object structured content (not a valid result: sent as data)', call(6, 'scalar')],
    ['a non-object structured content without a text block (the text fallback)', call(13, 'bare-scalar')],
    ['a structured content array without a text block', call(14, 'bare-scalar', { list: true })],
    ['invalid arguments (a tool result naming the field)', call(7, 'echo', { text: 5 })],
    ['missing arguments', call(8, 'echo')],
    ['a flow that fails', call(9, 'fails')],
    ['a flow that answers with a value JSON cannot carry', call(12, 'bigint')],
    ['a flow that asks although the tool declares nothing', call(10, 'asks')],
  ];
  for (const [label, body] of cases) {
    it(label, async () => {
      const { fast, sdk, fastRuns, sdkRuns, fastEvents, sdkEvents } = await both(body);
      assert.equal(fastRuns, 0, 'served without the SDK transport');
      assert.equal(sdkRuns, 1, 'the comparison endpoint used the SDK transport');
      assert.deepEqual(fast, sdk);
      assert.equal(fast.status, 200);
      assert.deepEqual(fastEvents, sdkEvents);
      assert.equal(fastEvents.length, 1, 'one telemetry event per call');
    });
  }

  it('a flow that never answers: the tool’s time limit, as a tool error', async () => {
    const { fast, sdk, fastRuns, fastEvents, sdkEvents } = await both(call(11, 'silent'));
    assert.equal(fastRuns, 0);
    assert.deepEqual(fast, sdk);
    assert.match(JSON.stringify(fast.json), /did not answer within 1 s/);
    assert.deepEqual(fastEvents, sdkEvents);
    assert.equal(fastEvents[0]?.outcome, 'timeout');
  });

  it('a full broker: -32000 Server busy, counted as busy, the flow never sees the call', async () => {
    for (const served of [direct, viaSdk]) {
      const held = [post(served.port, call(20, 'hold')), post(served.port, call(21, 'hold'))];
      await new Promise((resolve) => setTimeout(resolve, 100));
      const busy = await post(served.port, call(22, 'echo', { text: 'x' }));
      assert.equal(busy.status, 200);
      assert.deepEqual((busy.json as { error: unknown }).error, { code: -32000, message: 'Server busy: 2 tool calls are already running on /mcp; retry shortly.' });
      assert.deepEqual(busy.json, { jsonrpc: '2.0', id: 22, error: (busy.json as { error: unknown }).error });
      await Promise.all(held);
      assert.deepEqual(served.events.slice(-3).map((event) => event.outcome).sort(), ['busy', 'success', 'success']);
    }
  });
});

/** A whole answer as text (status, media type, body), to compare the bytes two endpoints write. */
function rawAnswer(port: number, body: unknown, headers: Record<string, string> = HEADERS): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(`${res.statusCode} ${res.headers['content-type']}\n${text}`));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('the first page of a 2025-era tools/list', () => {
  it('is answered from its prebuilt JSON, byte for byte what the SDK writes', async () => {
    const list = { jsonrpc: '2.0', id: 'list-1', method: 'tools/list' };
    let runs = sdkUse.transportRuns;
    const prebuilt = await rawAnswer(direct.port, list);
    assert.equal(sdkUse.transportRuns - runs, 0, 'answered without the SDK transport');
    runs = sdkUse.transportRuns;
    const fromSdk = await rawAnswer(viaSdk.port, list);
    assert.equal(sdkUse.transportRuns - runs, 1);
    assert.equal(prebuilt, fromSdk);
    assert.match(prebuilt, /"name":"echo"/);
  });

  it('with a progress token (Codex sends one with every request): the same prebuilt bytes as the SDK’s JSON answer', async () => {
    for (const progressToken of ['list-p', 9]) {
      const list = { jsonrpc: '2.0', id: 'list-2', method: 'tools/list', params: { _meta: { progressToken } } };
      let runs = sdkUse.transportRuns;
      const prebuilt = await rawAnswer(direct.port, list);
      assert.equal(sdkUse.transportRuns - runs, 0, 'answered without the SDK transport');
      runs = sdkUse.transportRuns;
      assert.equal(prebuilt, await rawAnswer(viaSdk.port, list));
      assert.equal(sdkUse.transportRuns - runs, 1);
      assert.match(prebuilt, /^200 application\/json\n/);
    }
  });

  it('leaves a cursor, or a _meta with more than a token, to the SDK with the same answer', async () => {
    for (const params of [{ _meta: { progressToken: 'p', mine: 1 } }, { _meta: { progressToken: 0.5 } }, { cursor: 'x', _meta: { progressToken: 'p' } }]) {
      const list = { jsonrpc: '2.0', id: 'list-3', method: 'tools/list', params };
      const runs = sdkUse.transportRuns;
      const fast = await rawAnswer(direct.port, list);
      assert.ok(sdkUse.transportRuns > runs || /"error"/.test(fast), JSON.stringify(params));
      assert.equal(fast, await rawAnswer(viaSdk.port, list));
    }
  });
});

describe('calls with a progress token (Claude Code and Codex send one with every call) served directly answer exactly as through the SDK', () => {
  const token = (value: string | number) => ({ _meta: { progressToken: value } });
  const modernToken = (value: string | number) => ({ ...MODERN_META, progressToken: value });
  const legacyCases: Array<[string, unknown]> = [
    ['a flow that reports progress twice, then answers (a string token)', call(90, 'reports', {}, token('p-90'))],
    ['a flow that reports progress (an integer token)', call(91, 'reports', {}, token(91))],
    ['a flow that answers at once: still an event stream, as the SDK’s 2025 transport answers', call(92, 'echo', { text: 'hi' }, token('p-92'))],
    ['invalid arguments', call(93, 'echo', { text: 5 }, token('p-93'))],
    ['a flow that fails', call(94, 'fails', {}, token('p-94'))],
    ['a flow that asks although the tool declares nothing (the call has a stream: told its tool declares nothing)', call(95, 'asks', {}, token('p-95'))],
    ['a flow that never answers (the time limit)', call(96, 'silent', {}, token('p-96'))],
    ['a token beside keys of the client’s own', call(97, 'reports', {}, { _meta: { progressToken: 'p-97', 'claudecode/toolUseId': 'x' } })],
  ];
  for (const [label, body] of legacyCases) {
    it(`2025-11-25: ${label}`, async () => {
      const { fast, sdk, fastRuns, sdkRuns, fastEvents, sdkEvents } = await both(body);
      assert.equal(fastRuns, 0, 'served without the SDK transport');
      assert.equal(sdkRuns, 1);
      assert.deepEqual(fast, sdk);
      assert.equal(fast.type, 'text/event-stream');
      assert.deepEqual(fastEvents, sdkEvents);
      assert.equal(fastEvents.length, 1);
    });
  }
  const modernCases: Array<[string, ReturnType<typeof modernCall>]> = [
    ['a flow that reports progress: an event stream from the first report', modernCall(100, 'reports', {}, modernToken('p-100'))],
    ['a flow that answers at once: one JSON body, as the SDK answers', modernCall(101, 'echo', { text: 'hi' }, modernToken(101))],
    ['invalid arguments', modernCall(102, 'echo', { text: 5 }, modernToken('p-102'))],
    ['a flow that asks although the tool declares nothing', modernCall(103, 'asks', {}, modernToken('p-103'))],
  ];
  for (const [label, { body, headers }] of modernCases) {
    it(`2026-07-28: ${label}`, async () => {
      const before = sdkUse.serverConnects;
      const { fast, sdk, fastEvents, sdkEvents } = await both(JSON.parse(JSON.stringify(body)), headers);
      assert.equal(sdkUse.serverConnects - before, 1, 'only the comparison endpoint built a server for the request');
      assert.deepEqual(fast, sdk);
      assert.deepEqual(fastEvents, sdkEvents);
      assert.equal(fastEvents.length, 1);
    });
  }

  it('the bytes on the wire, head and every event, are the SDK’s in both eras', async () => {
    const legacy = call(110, 'reports', {}, token('p-110'));
    const modern = modernCall(111, 'reports', {}, modernToken('p-111'));
    for (const [body, headers] of [[legacy, HEADERS], [modern.body, modern.headers]] as const) {
      const fast = await rawWithHeaders(direct.port, body, headers);
      assert.equal(fast, await rawWithHeaders(viaSdk.port, body, headers));
      assert.match(fast, /\ncache-control: no-cache, no-transform\n/);
      assert.match(fast, /event: message\ndata: \{"jsonrpc":"2\.0","method":"notifications\/progress","params":\{"progressToken":"p-11\d","progress":2,"total":4,"message":"half way"\}\}\n\n/);
    }
  });

  it('a full broker: the same JSON-RPC error on both paths, in the same framing', async () => {
    const answers = [];
    for (const served of [direct, viaSdk]) {
      const held = [post(served.port, call(120, 'hold')), post(served.port, call(121, 'hold'))];
      await new Promise((resolve) => setTimeout(resolve, 100));
      answers.push(await rawWithHeaders(served.port, call(122, 'echo', { text: 'x' }, token('p-122')), HEADERS));
      const { body, headers } = modernCall(123, 'echo', { text: 'x' }, modernToken('p-123'));
      answers.push(await rawWithHeaders(served.port, body, headers));
      await Promise.all(held);
    }
    assert.deepEqual(answers.slice(0, 2), answers.slice(2));
    assert.match(answers[0]!, /text\/event-stream[\s\S]*"code":-32000/);
    assert.match(answers[1]!, /application\/json[\s\S]*"code":-32000/);
  });
});

/** A whole answer as text with its headers but the date (the framing, chunked or sized, is part of it). */
function rawWithHeaders(port: number, body: unknown, headers: Record<string, string>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const head = Object.entries(res.headers).filter(([name]) => name !== 'date').map(([name, value]) => `${name}: ${String(value)}`);
        resolve(`${res.statusCode}\n${head.join('\n')}\n\n${text}`);
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('requests the direct path leaves to the SDK', () => {
  const others: Array<[string, unknown, Record<string, string>?]> = [
    ['an unknown tool (-32602)', call(30, 'nope')],
    ['a progress token that is neither a string nor an integer', call(31, 'echo', { text: 'hi' }, { _meta: { progressToken: 1.5 } })],
    ['a progress token that is an object', call(37, 'echo', { text: 'hi' }, { _meta: { progressToken: { id: 1 } } })],
    ['a progress token beyond the safe integers', call(38, 'echo', { text: 'hi' }, { _meta: { progressToken: 2 ** 60 } })],
    ['a task parameter', call(32, 'echo', { text: 'hi' }, { task: { ttl: 1000 } })],
    ['arguments that are not an object', call(33, 'echo', 'text')],
    ['a fractional id', call(1.5, 'echo', { text: 'hi' })],
    ['a key outside JSON-RPC', { ...call(34, 'echo', { text: 'hi' }), extra: true }],
    ['no revision header', call(35, 'echo', { text: 'hi' }), { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }],
    ['Accept without event streams (406)', call(36, 'echo', { text: 'hi' }), { ...HEADERS, accept: 'application/json' }],
  ];
  for (const [label, body, headers] of others) {
    it(label, async () => {
      const { fast, sdk, fastRuns, sdkRuns, fastEvents, sdkEvents } = await both(body, headers);
      // The same SDK path on both (a malformed request never reaches the 2025 transport at all).
      assert.equal(fastRuns, sdkRuns, 'took the same path as without direct calls');
      assert.deepEqual(fast, sdk);
      assert.deepEqual(fastEvents, sdkEvents);
    });
  }
});

describe('a call that ends without its answer, and a caller that wants log lines', () => {
  it('a client that hangs up: the call ends as cancelled on both paths, and the flow is told', async () => {
    for (const served of [direct, viaSdk]) {
      const before = served.events.length;
      await new Promise<void>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port: served.port, method: 'POST', path: '/mcp', agent: false, headers: HEADERS });
        req.on('error', () => resolve());
        req.end(JSON.stringify(call(40, 'silent')));
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100);
      });
      while (served.events.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(served.events[before]?.outcome, 'cancelled');
      assert.equal(served.events[before]?.responseBytes, 0, 'nothing was sent to a client that left');
      assert.deepEqual(served.abandoned.slice(-1), ['disconnected']);
    }
  });

  it('after logging/setLevel the caller’s calls get a stream, so they take the SDK’s path', async () => {
    const setLevel = { jsonrpc: '2.0', id: 50, method: 'logging/setLevel', params: { level: 'info' } };
    const levels = await both(setLevel);
    assert.deepEqual(levels.fast, levels.sdk);
    const { fast, sdk, fastRuns } = await both(call(51, 'echo', { text: 'hi' }));
    assert.equal(fastRuns, 1, 'went through the SDK transport');
    assert.equal(fast.type, 'text/event-stream');
    assert.deepEqual(fast, sdk);
  });
});

/** A 2026-07-28 tools/call as the official client sends it: the envelope in `_meta`, the method and tool repeated in headers. */
function modernCall(id: string | number, name: string, args?: unknown, meta: Record<string, unknown> = MODERN_META) {
  const body = { jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...(args !== undefined ? { arguments: args } : {}), _meta: meta } };
  const headers = { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name };
  return { body, headers };
}

describe('plain 2026-07-28 tool calls served directly answer exactly as through the SDK', () => {
  const cases: Array<[string, ReturnType<typeof modernCall>]> = [
    ['a string answer', modernCall(1, 'echo', { text: 'hi' })],
    ['a string id', modernCall('m-2', 'echo', { text: 'hi' })],
    ['a full result with keys of its own and a _meta', modernCall(3, 'full')],
    ['structured content checked against the output schema', modernCall(4, 'sum')],
    ['structured content whose JSON breaks the output schema', modernCall(5, 'sum', { bad: true })],
    ['invalid arguments', modernCall(6, 'echo', { text: 5 })],
    ['a non-object structured content without a text block (the text fallback)', modernCall(11, 'bare-scalar')],
    ['a structured content array without a text block', modernCall(12, 'bare-scalar', { list: true })],
    ['a flow that fails', modernCall(7, 'fails')],
    ['a flow that answers with a value JSON cannot carry', modernCall(10, 'bigint')],
    ['a flow that asks although the tool declares nothing', modernCall(8, 'asks')],
    ['an envelope without client info', modernCall(9, 'echo', { text: 'hi' }, { ...MODERN_META, 'io.modelcontextprotocol/clientInfo': undefined })],
  ];
  for (const [label, { body, headers }] of cases) {
    it(label, async () => {
      const before = sdkUse.serverConnects;
      const { fast, sdk, fastEvents, sdkEvents } = await both(JSON.parse(JSON.stringify(body)), headers);
      assert.equal(sdkUse.serverConnects - before, 1, 'only the comparison endpoint built a server for the request');
      assert.deepEqual(fast, sdk);
      assert.equal(fast.status, 200);
      assert.match(JSON.stringify(fast.json), /"resultType":"complete"/);
      assert.deepEqual(fastEvents, sdkEvents);
      assert.equal(fastEvents.length, 1);
    });
  }

  it('a full broker: the same JSON-RPC error on both paths', async () => {
    const answers = [];
    for (const served of [direct, viaSdk]) {
      const held = [post(served.port, call(60, 'hold')), post(served.port, call(61, 'hold'))];
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { body, headers } = modernCall(62, 'echo', { text: 'x' });
      answers.push(await post(served.port, body, headers));
      await Promise.all(held);
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.equal((answers[0]!.json as { error: { code: number } }).error.code, -32000);
  });

  const others: Array<[string, ReturnType<typeof modernCall>]> = [
    ['an invalid envelope (client info of the wrong type)', modernCall(70, 'echo', { text: 'hi' }, { ...MODERN_META, 'io.modelcontextprotocol/clientInfo': 'me' })],
    ['no client capabilities', modernCall(71, 'echo', { text: 'hi' }, { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': undefined })],
    ['a log level (an event stream)', modernCall(72, 'echo', { text: 'hi' }, { ...MODERN_META, 'io.modelcontextprotocol/logLevel': 'info' })],
    ['an Mcp-Name header naming another tool', { ...modernCall(73, 'echo', { text: 'hi' }), headers: { ...modernCall(73, 'echo').headers, 'mcp-name': 'full' } }],
    ['no Mcp-Method header', { ...modernCall(74, 'echo', { text: 'hi' }), headers: { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-name': 'echo' } as ReturnType<typeof modernCall>['headers'] }],
    ['an unknown tool', modernCall(75, 'nope', {})],
  ];
  for (const [label, { body, headers }] of others) {
    it(`left to the SDK: ${label}`, async () => {
      const { fast, sdk, fastEvents, sdkEvents } = await both(JSON.parse(JSON.stringify(body)), headers);
      assert.deepEqual(fast, sdk);
      assert.deepEqual(fastEvents, sdkEvents);
    });
  }
});

describe('the first page of a 2026-07-28 tools/list', () => {
  const list = (id: string | number, params: Record<string, unknown> = { _meta: MODERN_META }) => ({ jsonrpc: '2.0', id, method: 'tools/list', params });
  const headers = { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' };

  it('is answered from its prebuilt JSON, byte for byte what the SDK writes, without building a server', async () => {
    for (const id of [1, 'list-2']) {
      let connects = sdkUse.serverConnects;
      const prebuilt = await rawAnswer(direct.port, list(id), headers);
      assert.equal(sdkUse.serverConnects - connects, 0, 'answered without the SDK');
      connects = sdkUse.serverConnects;
      const fromSdk = await rawAnswer(viaSdk.port, list(id), headers);
      assert.equal(sdkUse.serverConnects - connects, 1);
      assert.equal(prebuilt, fromSdk);
      assert.match(prebuilt, /"resultType":"complete"/);
      assert.match(prebuilt, /"name":"bare-scalar"/);
    }
  });

  it('with a progress token beside the envelope: the same prebuilt bytes, without building a server', async () => {
    for (const progressToken of ['lp-1', 'lp-2', 3]) {
      const body = list(85, { _meta: { ...MODERN_META, progressToken } });
      let connects = sdkUse.serverConnects;
      const prebuilt = await rawAnswer(direct.port, body, headers);
      assert.equal(sdkUse.serverConnects - connects, 0, 'answered without the SDK');
      connects = sdkUse.serverConnects;
      assert.equal(prebuilt, await rawAnswer(viaSdk.port, body, headers));
      assert.equal(sdkUse.serverConnects - connects, 1);
    }
  });

  const others: Array<[string, unknown, Record<string, string>?]> = [
    ['a cursor', list(80, { _meta: MODERN_META, cursor: 'x' })],
    ['a progress token of another type', list(86, { _meta: { ...MODERN_META, progressToken: { n: 1 } } })],
    ['a log level in the envelope', list(81, { _meta: { ...MODERN_META, 'io.modelcontextprotocol/logLevel': 'info' } })],
    ['an invalid envelope', list(82, { _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientInfo': 'me' } })],
    ['no envelope', list(83, {})],
    ['an Mcp-Method header naming another method', list(84), { ...headers, 'mcp-method': 'tools/call' }],
  ];
  for (const [label, body, requestHeaders] of others) {
    it(`left to the SDK, with the same answer: ${label}`, async () => {
      const connects = sdkUse.serverConnects;
      const fast = await rawAnswer(direct.port, body, requestHeaders ?? headers);
      assert.ok(sdkUse.serverConnects > connects || /"error"/.test(fast), 'the SDK answered it');
      assert.equal(fast, await rawAnswer(viaSdk.port, body, requestHeaders ?? headers));
    });
  }
});
