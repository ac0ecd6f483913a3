import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { answer, flowServer, runtime, storage, tab, tool, topicSwitch, TAB } from '../support/flows.js';
import { JSON_HEADERS, rawRequest, withClient, type Era, type RawResponse } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { startServing } from '../support/serving.js';
import { twoNodeRedsOnRedis } from '../support/two-node-reds.js';
import { Redis } from 'ioredis';
import { openStream, type OpenStream } from '../support/sse-stream.js';

/**
 * A flow asking the client during a tool call (mcp-tool-input), through real Node-RED and the official
 * MCP client: on 2026-07-28 as input_required results the client fulfils and retries with a sealed
 * requestState, on 2025-11-25 as requests on the call's own event stream that the client answers with
 * POSTs, which may reach another Node-RED sharing the same Redis.
 */

/**
 * Every tool's flow: it logs each mcp-tool-execute it gets (so a test counts rounds that reached the
 * flow), asks in its first round, and answers a later round with everything it was given.
 */
const ASKER = `const p = msg.payload;
node.warn('ask-execute ' + p.toolName + ' ' + p.executionId + ' round=' + (p.inputRound || 0) + ' instance=' + env.get('MCP_TEST_INSTANCE') + ' answers=' + (p.inputResponses ? Object.keys(p.inputResponses).join(',') : 'none') + ' unasked=' + (p.unaskedResponses ? Object.keys(p.unaskedResponses).join(',') : 'none') + ' x=' + JSON.stringify(p.arguments.x));
const reply = (result) => ({ topic: 'mcp-tool-response', payload: { executionId: p.executionId, result: { ...result, executionId: p.executionId } } });
const ask = (requests, state) => ({ topic: 'mcp-tool-input', payload: { executionId: p.executionId, requests, state } });
const CITY = { elicitation: { message: 'Which city?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };
const got = () => reply({
  inputRound: p.inputRound ?? null,
  inputResponses: p.inputResponses ?? null,
  inputError: p.inputError ?? null,
  state: p.state ?? null,
  clientCapabilities: p.clientCapabilities ?? null,
  instance: env.get('MCP_TEST_INSTANCE'),
});
switch (p.toolName) {
  case 'ask_thrice': {
    const step = p.state ? p.state.step : 0;
    const collected = p.state ? p.state.collected : [];
    if (step > 0) collected.push(p.inputResponses ? p.inputResponses['q' + step] : p.inputError);
    if (step === 3) return reply({ collected, inputRound: p.inputRound });
    const question = { elicitation: { message: 'Question ' + (step + 1), requestedSchema: { type: 'object', properties: { answer: { type: 'string' } } } } };
    return ask({ ['q' + (step + 1)]: question }, { step: step + 1, collected });
  }
  case 'ask_all':
    if (p.inputRound) return got();
    return ask({
      city: CITY,
      summary: { sampling: { messages: [{ role: 'user', content: { type: 'text', text: 'Describe Oslo' } }], maxTokens: 50 } },
      folders: { roots: {} },
    }, { asked: 'all' });
  case 'hold_slot':
    // Never answers: holds one of the endpoint's slots until its time limit.
    return null;
  case 'ask_badly':
    // A form cannot ask for a nested object: the flow-server refuses the message with done(error).
    return ask({ city: { elicitation: { message: 'Where?', requestedSchema: { type: 'object', properties: { where: { type: 'object' } } } } } });
  default:
    return p.inputRound ? got() : ask({ city: CITY }, { asked: p.toolName });
}`;

const ON_CANCEL = `node.warn('ask-cancel ' + msg.payload.executionId + ' reason=' + msg.payload.reason);
return null;`;

function asking(id: string, name: string, asks: string, extra: Record<string, unknown> = {}, timeout = 60): FlowNode {
  return { ...tool(id, { name, endpoint: '*', timeout }), asks, ...extra };
}

/** Two endpoints (/ask and /other) sharing every tool; with `redis`, both keep their shared state there. */
function askFlows(port: number, options: { redis?: boolean } = {}): FlowNode[] {
  const server = (id: string, path: string) => ({ ...flowServer(id, { runtime: 'rt', path, wires: ['by-topic'] }), ...(options.redis ? { storage: 'store' } : {}) });
  return [
    tab(),
    runtime('rt', port),
    ...(options.redis ? [storage('store', 'redis', 'MCP_TEST_REDIS_URL')] : []),
    server('fs', '/ask'),
    server('fs-other', '/other'),
    // One call at a time: also the number of calls that may wait for their clients' answers.
    { ...server('fs-narrow', '/narrow'), maxConcurrent: '1' },
    topicSwitch('by-topic', { 'mcp-tool-execute': 'asker', 'mcp-tool-cancel': 'on-cancel' }),
    // Answers go back to whichever endpoint sent the call: both are wired to the same flow.
    { ...answer('asker', ASKER, 'fs'), wires: [['fs', 'fs-other', 'fs-narrow']] },
    answer('on-cancel', ON_CANCEL, ''),
    // Errors the flow-server reports with done(error), as a flow author sees them in a Catch node.
    { id: 'catch-fs', type: 'catch', z: TAB, name: '', scope: ['fs', 'fs-other', 'fs-narrow'], uncaught: false, x: 100, y: 400, wires: [['caught']] },
    answer('caught', `node.warn('caught-error ' + msg.error.message);\nreturn null;`, ''),
    asking('t-once', 'ask_once', 'elicitation'),
    asking('t-twin', 'ask_twin', 'elicitation'),
    asking('t-thrice', 'ask_thrice', 'elicitation'),
    asking('t-all', 'ask_all', 'elicitation,sampling,roots'),
    asking('t-required', 'ask_required', 'elicitation', { asksRequired: true }),
    asking('t-slow', 'ask_slow', 'elicitation', {}, 2),
    asking('t-badly', 'ask_badly', 'elicitation', {}, 1),
    tool('t-none', { name: 'no_asks', endpoint: '*' }),
    tool('t-hold', { name: 'hold_slot', endpoint: '*', timeout: 3 }),
  ];
}

interface Answers {
  readonly elicit?: (params: { message: string; requestedSchema: unknown }) => unknown;
  readonly sample?: (params: { messages: unknown[] }) => unknown;
  readonly roots?: () => unknown;
}

/** What each handler was asked, in order. */
interface Heard {
  readonly elicit: Array<{ message: string; requestedSchema: unknown }>;
  readonly sample: Array<{ messages: unknown[] }>;
  readonly roots: number[];
}

/** A client that can be asked, what it was asked, and how to close it (for withClient). */
interface AskedClient {
  readonly client: Client;
  readonly heard: Heard;
  close(): Promise<void>;
}

/**
 * The official client, declaring (and handling) exactly the kinds `answers` names: a client without
 * a kind neither declares its capability nor registers a handler.
 */
async function askedClient(url: string, era: Era, answers: Answers): Promise<AskedClient> {
  const capabilities = {
    ...(answers.elicit ? { elicitation: { form: {} } } : {}),
    ...(answers.sample ? { sampling: {} } : {}),
    ...(answers.roots ? { roots: {} } : {}),
  };
  const client = new Client({ name: 'asked-client', version: '1.0.0' }, { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : 'auto' }, capabilities });
  const heard: Heard = { elicit: [], sample: [], roots: [] };
  if (answers.elicit) {
    const elicit = answers.elicit;
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { message: string; requestedSchema: unknown };
      heard.elicit.push({ message: params.message, requestedSchema: params.requestedSchema });
      return (await elicit(params)) as never;
    });
  }
  if (answers.sample) {
    const sample = answers.sample;
    client.setRequestHandler('sampling/createMessage', async (request) => {
      heard.sample.push({ messages: request.params.messages as unknown[] });
      return (await sample(request.params as never)) as never;
    });
  }
  if (answers.roots) {
    const roots = answers.roots;
    client.setRequestHandler('roots/list', async () => {
      heard.roots.push(heard.roots.length + 1);
      return roots() as never;
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, heard, close: () => client.close() };
}

/** What the flow got, as it answered it: the JSON of the result, with the executionId of the answering round. */
type FlowSaw = { readonly executionId: string; readonly [key: string]: any };

/** The JSON the flow answered with (structured content or the text of the first block). */
function flowSaw(result: { content?: unknown; structuredContent?: unknown; isError?: unknown }): FlowSaw {
  assert.notEqual(result.isError, true, JSON.stringify(result));
  const saw = (result.structuredContent ?? JSON.parse((result.content as Array<{ text: string }>)[0]!.text)) as FlowSaw;
  assert.equal(typeof saw.executionId, 'string');
  return saw;
}

const CITY_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'A city by a fjord.' }, model: 'test-model', stopReason: 'endTurn' };
const ROOTS = { roots: [{ uri: 'file:///work/project', name: 'project' }] };
const ALL_ANSWERS: Answers = { elicit: () => ({ action: 'accept', content: { city: 'Oslo' } }), sample: () => SAMPLED, roots: () => ROOTS };

const MODERN_HEADERS = { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };
const ALL_CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} };

/** A raw 2026-07-28 tools/call (or retry), declaring `capabilities` in its envelope. */
function modernCall(url: string, name: string, extra: Record<string, unknown> = {}, capabilities: object = ALL_CAPABILITIES, id = 1): Promise<RawResponse> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
  return rawRequest(url, {
    headers: { ...MODERN_HEADERS, 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...extra, _meta } }),
  });
}

/** The JSON-RPC error code a rejected request carried. */
async function rejectionOf(promise: Promise<unknown>): Promise<{ code?: unknown; message: string; data?: any }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: unknown; message: string; data?: any };
  }
  assert.fail('the request was expected to fail');
}

const LEGACY_HEADERS = { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' };

/** A 2025-11-25 tools/call on `target` whose answer is a stream; returns it with the first request it carries. */
async function callAsking(target: string, name: string): Promise<{ stream: OpenStream; asked: any }> {
  const stream = await openStream(target, { jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name, arguments: {} } }, LEGACY_HEADERS);
  assert.equal(stream.status, 200);
  assert.match(stream.contentType, /text\/event-stream/);
  return { stream, asked: await stream.next() };
}

describe(`asking the client on one Node-RED (${nodeRedPackage})`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;
  let otherUrl: string;

  before(async () => {
    ({ nodeRed, url } = await startServing(askFlows, '/ask', { env: { MCP_TEST_INSTANCE: 'solo' } }));
    otherUrl = new URL('/other', url).href;
  });
  after(() => nodeRed?.stop());

  /**
   * The mcp-tool-execute lines the flow logged for `tool` since `since`, once the line of the
   * execution `last` (an executionId, or the first execution of a round) is in: Node-RED prints in
   * order, so every earlier execution is in too.
   */
  async function executions(tool: string, since: number, last: { executionId: string } | { round: number }): Promise<Array<{ executionId: string; round: number }>> {
    await nodeRed.waitForOutput('executionId' in last ? ` ${last.executionId} round=` : new RegExp(`ask-execute ${tool} \\S+ round=${last.round} `), since);
    return [...nodeRed.output().slice(since).matchAll(new RegExp(`ask-execute ${tool} (\\S+) round=(\\d+)`, 'g'))].map((match) => ({ executionId: match[1]!, round: Number(match[2]) }));
  }

  for (const era of ['legacy', 'modern'] as Era[]) {
    describe(`${era} era`, () => {
      it('asks one question and hands the answer, the flow state and the round to a new mcp-tool-execute', async () => {
        const since = nodeRed.output().length;
        await withClient(askedClient(url, era, { elicit: () => ({ action: 'accept', content: { city: 'Oslo' } }) }), async ({ client, heard }) => {
          const saw = flowSaw(await client.callTool({ name: 'ask_once', arguments: {} }));
          assert.deepEqual(heard.elicit, [{ message: 'Which city?', requestedSchema: CITY_SCHEMA }]);
          assert.equal(saw['inputRound'], 1);
          assert.deepEqual(saw['inputResponses'], { city: { action: 'accept', content: { city: 'Oslo' } } });
          assert.deepEqual(saw['state'], { asked: 'ask_once' });
          assert.equal(saw['inputError'], null);
          // Only 2026-07-28 requests say what the client can be asked.
          if (era === 'modern') assert.deepEqual(saw['clientCapabilities']?.elicitation, { form: {} });
          else assert.equal(saw['clientCapabilities'], null);
          const executes = await executions('ask_once', since, saw);
          assert.deepEqual(
            executes.map(({ round }) => round),
            [0, 1],
          );
          assert.notEqual(executes[0]!.executionId, executes[1]!.executionId, 'each round is a new execution');
        });
      });

      it('carries the flow state through several rounds, one question each', async () => {
        const since = nodeRed.output().length;
        await withClient(askedClient(url, era, { elicit: ({ message }) => ({ action: 'accept', content: { answer: `answer to ${message}` } }) }), async ({ client, heard }) => {
          const saw = flowSaw(await client.callTool({ name: 'ask_thrice', arguments: {} }));
          assert.deepEqual(
            heard.elicit.map(({ message }) => message),
            ['Question 1', 'Question 2', 'Question 3'],
          );
          assert.deepEqual(saw['collected'], [1, 2, 3].map((n) => ({ action: 'accept', content: { answer: `answer to Question ${n}` } })));
          assert.equal(saw['inputRound'], 3);
          assert.deepEqual(
            (await executions('ask_thrice', since, saw)).map(({ round }) => round),
            [0, 1, 2, 3],
          );
        });
      });

      it('asks for a form, a sampled message and the roots at once and keys each answer as the flow keyed the request', async () => {
        await withClient(askedClient(url, era, ALL_ANSWERS), async ({ client, heard }) => {
          const saw = flowSaw(await client.callTool({ name: 'ask_all', arguments: {} }));
          assert.deepEqual(saw['inputResponses'], { city: { action: 'accept', content: { city: 'Oslo' } }, summary: SAMPLED, folders: ROOTS });
          assert.deepEqual(saw['state'], { asked: 'all' });
          assert.equal(heard.elicit.length, 1);
          assert.deepEqual(heard.sample, [{ messages: [{ role: 'user', content: { type: 'text', text: 'Describe Oslo' } }] }]);
          assert.equal(heard.roots.length, 1);
        });
      });

      it('hands a declined and a cancelled form to the flow as the client answered them', async () => {
        for (const action of ['decline', 'cancel']) {
          await withClient(askedClient(url, era, { elicit: () => ({ action }) }), async ({ client }) => {
            const saw = flowSaw(await client.callTool({ name: 'ask_once', arguments: {} }));
            assert.deepEqual(saw['inputResponses'], { city: { action } }, action);
            assert.equal(saw['inputError'], null);
          });
        }
      });

      it('tells the flow with inputError when the tool does not declare that it asks, and asks the client nothing', async () => {
        await withClient(askedClient(url, era, ALL_ANSWERS), async ({ client, heard }) => {
          const saw = flowSaw(await client.callTool({ name: 'no_asks', arguments: {} }));
          assert.equal(heard.elicit.length, 0);
          assert.equal(saw['inputResponses'], null);
          assert.equal(saw['inputRound'], 1);
          assert.deepEqual(saw['state'], { asked: 'no_asks' });
          assert.equal(saw['inputError'].code, -32603);
          assert.deepEqual(saw['inputError'].keys, ['city']);
          assert.match(saw['inputError'].message, /Tool "no_asks"/);
        });
      });
    });
  }

  describe('2026-07-28', () => {
    it('tells the flow -32021 when the client did not declare the capability, and never asks it', async () => {
      const since = nodeRed.output().length;
      await withClient(askedClient(url, 'modern', { sample: () => SAMPLED }), async ({ client }) => {
        const saw = flowSaw(await client.callTool({ name: 'ask_once', arguments: {} }));
        assert.equal(saw['inputResponses'], null);
        assert.deepEqual(saw['inputError'], { code: -32021, message: saw['inputError'].message, keys: ['city'] });
        assert.match(saw['inputError'].message, /elicitation capability/);
        assert.equal(saw['clientCapabilities']?.elicitation, undefined);
        assert.deepEqual(
          (await executions('ask_once', since, saw)).map(({ round }) => round),
          [0, 1],
        );
      });
    });

    it('refuses a call to a tool that requires a capability the client lacks with -32021 before the flow runs', async () => {
      const since = nodeRed.output().length;
      await withClient(askedClient(url, 'modern', { sample: () => SAMPLED }), async ({ client }) => {
        const refused = await rejectionOf(client.callTool({ name: 'ask_required', arguments: {} }));
        assert.equal(refused.code, -32021);
        assert.deepEqual(refused.data?.requiredCapabilities, { elicitation: {} });
      });
      // The same tool with a capable client runs.
      await withClient(askedClient(url, 'modern', { elicit: () => ({ action: 'accept', content: { city: 'Oslo' } }) }), async (capable) => {
        const saw = flowSaw(await capable.client.callTool({ name: 'ask_required', arguments: {} }));
        assert.deepEqual(saw['inputResponses'], { city: { action: 'accept', content: { city: 'Oslo' } } });
        assert.deepEqual(
          (await executions('ask_required', since, saw)).map(({ round }) => round),
          [0, 1],
          'the refused call never reached the flow',
        );
      });
    });

    it('answers input_required with the questions and a sealed state the client cannot read', async () => {
      const first = await modernCall(url, 'ask_all');
      assert.equal(first.status, 200);
      const result = first.json().result;
      assert.equal(result.resultType, 'input_required');
      assert.deepEqual(Object.keys(result.inputRequests).sort(), ['city', 'folders', 'summary']);
      assert.equal(result.inputRequests.city.method, 'elicitation/create');
      assert.equal(result.inputRequests.summary.method, 'sampling/createMessage');
      assert.equal(result.inputRequests.folders.method, 'roots/list');
      assert.equal(typeof result.requestState, 'string');
      assert.doesNotMatch(Buffer.from(result.requestState.slice(3), 'base64url').toString('latin1'), /"asked"/);
    });

    it('refuses a tampered requestState, and one replayed against another tool or another endpoint, with -32602', async () => {
      const since = nodeRed.output().length;
      const first = (await modernCall(url, 'ask_once')).json().result;
      const state: string = first.requestState;
      const inputResponses = { city: { action: 'accept', content: { city: 'Oslo' } } };
      const flippedAt = state.length - 5;
      const tampered = state.slice(0, flippedAt) + (state[flippedAt] === 'A' ? 'B' : 'A') + state.slice(flippedAt + 1);
      const attempts: Array<[string, string, string]> = [
        ['tampered', url, 'ask_once'],
        ['another tool', url, 'ask_twin'],
        ['another endpoint', otherUrl, 'ask_once'],
      ];
      for (const [what, target, name] of attempts) {
        const response = await modernCall(target, name, { inputResponses, requestState: what === 'tampered' ? tampered : state });
        const error = response.json().error;
        assert.equal(error?.code, -32602, `${what}: ${response.body}`);
        assert.match(error.message, /Invalid or expired requestState/, what);
      }
      // The untouched state still works where it was minted.
      const resumed = flowSaw((await modernCall(url, 'ask_once', { inputResponses, requestState: state })).json().result);
      assert.deepEqual(resumed['inputResponses'], inputResponses);
      assert.deepEqual(
        (await executions('ask_(?:once|twin)', since, resumed)).map(({ round }) => round),
        [0, 1],
        'no refused retry reached the flow',
      );
    });

    it('never hands answers a first call brought without a requestState to the flow as inputResponses: its round 0 gets them apart, as unaskedResponses', async () => {
      // SEP-2322 lets a client answer up front (the conformance suite's ignore-extra-params does). A
      // flow that reads inputResponses must only ever see answers to what its user was asked.
      const since = nodeRed.output().length;
      const upFront = await modernCall(url, 'ask_once', { inputResponses: { city: { action: 'accept', content: { city: 'Up front' } } } });
      assert.equal(upFront.json().result?.resultType, 'input_required', upFront.body);
      await nodeRed.waitForOutput(/ask-execute ask_once \S+ round=0 instance=solo answers=none unasked=city /, since);
      // Not even shaped like an answer: refused, and the flow never runs.
      const garbage = await modernCall(url, 'ask_once', { inputResponses: { city: { hello: 'world' } } });
      assert.equal(garbage.json().error?.code, -32602, garbage.body);
      assert.match(garbage.json().error.message, /^Invalid inputResponses\.city: /);
    });

    it('refuses a retry whose arguments differ from the call that asked (-32602), and the flow never sees them', async () => {
      const since = nodeRed.output().length;
      const first = (await modernCall(url, 'ask_once', { arguments: { x: 1 } })).json().result;
      assert.equal(first.resultType, 'input_required');
      const inputResponses = { city: { action: 'accept', content: { city: 'Oslo' } } };
      for (const [index, args] of [{ x: 999 }, {}, { x: 1, y: 2 }].entries()) {
        const swapped = await modernCall(url, 'ask_once', { arguments: args, inputResponses, requestState: first.requestState }, ALL_CAPABILITIES, 10 + index);
        assert.equal(swapped.json().error?.code, -32602, swapped.body);
        assert.match(swapped.json().error.message, /belongs to a call with other arguments/);
      }
      const saw = flowSaw((await modernCall(url, 'ask_once', { arguments: { x: 1 }, inputResponses, requestState: first.requestState }, ALL_CAPABILITIES, 20)).json().result);
      assert.deepEqual(saw['inputResponses'], inputResponses);
      const rounds = await nodeRed.waitForMatches(/ask-execute ask_once \S+ round=(\d+) .* x=(\S+)/, 2, since);
      assert.deepEqual(rounds.map((match) => `${match[1]} ${match[2]}`), ['0 1', '1 1'], 'only the first arguments reached the flow');
    });

    it('takes a requestState once: the replay of a finished round is refused (-32602) and the round runs once', async () => {
      const since = nodeRed.output().length;
      const first = (await modernCall(url, 'ask_once')).json().result;
      const retry = { inputResponses: { city: { action: 'accept', content: { city: 'Oslo' } } }, requestState: first.requestState };
      const saw = flowSaw((await modernCall(url, 'ask_once', retry, ALL_CAPABILITIES, 2)).json().result);
      for (const id of [3, 4, 5]) {
        const replayed = await modernCall(url, 'ask_once', retry, ALL_CAPABILITIES, id);
        assert.equal(replayed.json().error?.code, -32602, replayed.body);
        assert.match(replayed.json().error.message, /has been used already/);
      }
      assert.deepEqual(
        (await executions('ask_once', since, saw)).map(({ round }) => round),
        [0, 1],
        'the replays never reached the flow',
      );
    });

    it('gives the state back when the retry finds the endpoint busy (-32000), so retrying it later still works', async () => {
      const narrow = url.replace(/\/ask$/, '/narrow');
      const since = nodeRed.output().length;
      const first = (await modernCall(narrow, 'ask_once')).json().result;
      const retry = { inputResponses: { city: { action: 'accept', content: { city: 'Oslo' } } }, requestState: first.requestState };
      // The one slot of /narrow is taken until hold_slot's time limit.
      const holding = modernCall(narrow, 'hold_slot', {}, ALL_CAPABILITIES, 2);
      await nodeRed.waitForOutput(/ask-execute hold_slot /, since);
      const busy = await modernCall(narrow, 'ask_once', retry, ALL_CAPABILITIES, 3);
      assert.equal(busy.json().error?.code, -32000, busy.body);
      await holding;
      const saw = flowSaw((await modernCall(narrow, 'ask_once', retry, ALL_CAPABILITIES, 4)).json().result);
      assert.deepEqual(saw['inputResponses'], retry.inputResponses);
      assert.match((await modernCall(narrow, 'ask_once', retry, ALL_CAPABILITIES, 5)).json().error?.message ?? '', /has been used already/);
    });

    it('refuses an answer that does not fit what was asked (-32602 naming its key), and nothing reaches the flow', async () => {
      const since = nodeRed.output().length;
      const first = (await modernCall(url, 'ask_all')).json().result;
      const good = { city: { action: 'accept', content: { city: 'Oslo' } }, summary: SAMPLED, folders: ROOTS };
      const cases: Array<[string, Record<string, unknown>]> = [
        ['city', { ...good, city: { action: 'bogus', content: { ok: 'yes', extra: '<img src=x onerror=alert(1)>' } } }],
        ['city', { ...good, city: { action: 'accept', content: { city: 'Oslo', extra: '<img src=x>' } } }],
        ['city', { ...good, city: { action: 'decline', content: { city: 'Oslo' } } }],
        ['summary', { ...good, summary: { role: 'assistant', content: { type: 'text' }, model: 'm' } }],
        ['folders', { ...good, folders: { roots: [{ uri: 'https://example.com/' }] } }],
      ];
      for (const [index, [key, inputResponses]] of cases.entries()) {
        const refused = await modernCall(url, 'ask_all', { inputResponses, requestState: first.requestState }, ALL_CAPABILITIES, 10 + index);
        assert.equal(refused.json().error?.code, -32602, refused.body);
        assert.match(refused.json().error.message, new RegExp(`^Invalid inputResponses\\.${key}: `));
        assert.equal(refused.json().error.data?.key, key);
      }
      // The state was not used up by the refusals: the client fixes its answer and retries.
      const saw = flowSaw((await modernCall(url, 'ask_all', { inputResponses: good, requestState: first.requestState }, ALL_CAPABILITIES, 30)).json().result);
      assert.deepEqual(saw['inputResponses'], good);
      assert.deepEqual(
        (await executions('ask_all', since, saw)).map(({ round }) => round),
        [0, 1],
      );
    });

    it('asks again only what a retry left unanswered, without running the flow, and the flow gets every answer in the end', async () => {
      const since = nodeRed.output().length;
      const first = (await modernCall(url, 'ask_all')).json().result;
      const city = { action: 'accept', content: { city: 'Oslo' } };
      const partial = (await modernCall(url, 'ask_all', { inputResponses: { city }, requestState: first.requestState }, ALL_CAPABILITIES, 2)).json().result;
      assert.equal(partial.resultType, 'input_required', JSON.stringify(partial));
      assert.deepEqual(Object.keys(partial.inputRequests).sort(), ['folders', 'summary']);
      assert.deepEqual(partial.inputRequests.summary, first.inputRequests.summary);
      const done = (await modernCall(url, 'ask_all', { inputResponses: { summary: SAMPLED, folders: ROOTS }, requestState: partial.requestState }, ALL_CAPABILITIES, 3)).json().result;
      const saw = flowSaw(done);
      assert.deepEqual(saw['state'], { asked: 'all' });
      assert.deepEqual(saw['inputResponses'], { city, summary: SAMPLED, folders: ROOTS });
      assert.deepEqual(
        (await executions('ask_all', since, saw)).map(({ round }) => round),
        [0, 1],
        'the partial retry did not reach the flow',
      );
    });
  });

  describe('2025-11-25', () => {
    it('hands the flow the error a client without the capability answered with', async () => {
      await withClient(askedClient(url, 'legacy', { sample: () => SAMPLED }), async ({ client }) => {
        const saw = flowSaw(await client.callTool({ name: 'ask_once', arguments: {} }));
        assert.equal(saw['inputError'], null);
        const answered = saw['inputResponses']?.city;
        assert.equal(typeof answered?.error?.code, 'number', JSON.stringify(saw));
        assert.equal(typeof answered.error.message, 'string');
      });
    });

    it('reports a malformed mcp-tool-input to a Catch node, naming the field, asks the client nothing, and ends the call at its time limit', async () => {
      const since = nodeRed.output().length;
      await withClient(askedClient(url, 'legacy', ALL_ANSWERS), async ({ client, heard }) => {
        const result = await client.callTool({ name: 'ask_badly', arguments: {} });
        assert.equal(result.isError, true);
        assert.equal(heard.elicit.length, 0);
        await nodeRed.waitForOutput(/caught-error (Error: )?mcp-tool-input needs msg\.payload .*requests\.city: elicitation\.requestedSchema\.properties\.where: type must be/, since);
        // The round is still the flow's to answer, so it ends at the time limit and the flow is told.
        const [execution] = await executions('ask_badly', since, { round: 0 });
        await nodeRed.waitForOutput(`ask-cancel ${execution!.executionId} reason=timeout`, since);
      });
    });

    it('refuses an answer that does not fit its question with HTTP 400 / -32602, delivers nothing of that POST, and takes the fixed answer', async () => {
      const since = nodeRed.output().length;
      const { stream, asked } = await callAsking(url, 'ask_once');
      try {
        for (const result of [{ action: 'bogus', content: { ok: 'yes', extra: '<img src=x onerror=alert(1)>' } }, { action: 'accept', content: { city: 'Oslo', extra: 1 } }, { action: 'accept', content: {} }]) {
          const refused = await rawRequest(url, { headers: LEGACY_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: asked.id, result }) });
          assert.equal(refused.status, 400, JSON.stringify(result));
          assert.equal(refused.json().error.code, -32602);
          assert.match(refused.json().error.message, new RegExp(`Invalid answer, nothing was delivered: request "${asked.id}": `));
        }
        const accepted = await rawRequest(url, { headers: LEGACY_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { city: 'Oslo' } } }) });
        assert.equal(accepted.status, 202);
        const saw = flowSaw((await stream.next()).result);
        assert.deepEqual(saw['inputResponses'], { city: { action: 'accept', content: { city: 'Oslo' } } });
        assert.deepEqual(
          (await executions('ask_once', since, saw)).map(({ round }) => round),
          [0, 1],
        );
      } finally {
        stream.close();
      }
    });

    it('refuses a POST of more than 100 answers (HTTP 400, -32600) before looking at any', async () => {
      const batch = Array.from({ length: 101 }, (_, n) => ({ jsonrpc: '2.0', id: `x.y.${n % 10}`, result: { action: 'decline' } }));
      const response = await rawRequest(url, { headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-03-26' }, body: JSON.stringify(batch) });
      assert.equal(response.status, 400);
      assert.equal(response.json().error.code, -32600);
      assert.match(response.json().error.message, /Batch must not exceed 100 messages/);
    });

    it('refuses an answer nobody asked for with HTTP 400', async () => {
      for (const id of ['no-such-instance.abc', 'plain-id']) {
        const response = await rawRequest(url, { headers: LEGACY_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id, result: { action: 'accept', content: { city: 'Oslo' } } }) });
        assert.equal(response.status, 400, id);
        assert.equal(response.json().error.code, -32600);
      }
    });

    it('tells the flow the server is busy (inputError -32000) when as many calls as may run are already waiting for answers', async () => {
      const narrow = url.replace(/\/ask$/, '/narrow');
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const { client: waiting, heard } = await askedClient(narrow, 'legacy', {
        elicit: async () => {
          await held;
          return { action: 'accept', content: { city: 'Oslo' } };
        },
      });
      const { client: second } = await askedClient(narrow, 'legacy', { elicit: () => ({ action: 'accept', content: { city: 'Bergen' } }) });
      try {
        const first = waiting.callTool({ name: 'ask_once', arguments: {} });
        while (heard.elicit.length === 0) await new Promise((resolve) => setImmediate(resolve));
        // The first call's question is out and its round has ended: the second call runs, but cannot ask.
        const saw = flowSaw(await second.callTool({ name: 'ask_once', arguments: {} }));
        assert.equal(saw.inputResponses, null);
        assert.equal(saw.inputError?.code, -32000);
        assert.match(saw.inputError?.message ?? '', /Server busy: 1 calls on \/narrow are already waiting for their clients' answers/);
        release();
        assert.deepEqual(flowSaw(await first).inputResponses, { city: { action: 'accept', content: { city: 'Oslo' } } });
      } finally {
        release();
        await waiting.close();
        await second.close();
      }
    });

    it('ends a call whose answer never comes at the tool time limit, and tells the flow (mcp-tool-cancel for the round that asked)', async () => {
      const since = nodeRed.output().length;
      let release!: () => void;
      const never = new Promise<void>((resolve) => (release = resolve));
      const { client, heard } = await askedClient(url, 'legacy', {
        elicit: async () => {
          await never;
          return { action: 'cancel' };
        },
      });
      try {
        const result = await client.callTool({ name: 'ask_slow', arguments: {} });
        assert.equal(heard.elicit.length, 1);
        assert.equal(result.isError, true, JSON.stringify(result));
        assert.match((result.content as Array<{ text: string }>)[0]!.text, /asked the client a question that was not answered within 2 s/);
        const [asking] = await executions('ask_slow', since, { round: 0 });
        assert.ok(asking);
        await nodeRed.waitForOutput(`ask-cancel ${asking.executionId} reason=timeout`, since);
      } finally {
        release();
        await client.close();
      }
    });
  });
});

describe(`asking a 2025-era client across two Node-RED instances sharing Redis (${nodeRedPackage})`, () => {
  // One request-state key for both, as behind a load balancer: either instance opens the other's states.
  const pair = twoNodeRedsOnRedis((port) => askFlows(port, { redis: true }), '/ask', ['first', 'second'], { MCP_REQUEST_STATE_KEY: 'a shared key of two instances, long enough' });

  /** Counts the messages published on the answer channels (one per instance a POST's answers go to). */
  async function answerPublishes(during: () => Promise<void>): Promise<number> {
    const spy = new Redis(pair.redis.url);
    let heard = 0;
    spy.on('pmessage', () => heard++);
    try {
      await spy.psubscribe('*mcp-input:answers:*');
      await during();
      // A message published before the POST was answered is delivered to the spy right after.
      await spy.ping();
      return heard;
    } finally {
      spy.disconnect();
    }
  }

  it('delivers the answers POSTed to the other instance to the call waiting on the first, all three in one Redis message', async () => {
    const { stream, asked } = await callAsking(pair.firstUrl, 'ask_all');
    try {
      const requests = [asked, await stream.next(), await stream.next()];
      assert.deepEqual(requests.map((request) => request.method).sort(), ['elicitation/create', 'roots/list', 'sampling/createMessage']);
      for (const request of requests) assert.equal(typeof request.id, 'string');
      const resultOf: Record<string, unknown> = { 'elicitation/create': { action: 'accept', content: { city: 'Bergen' } }, 'sampling/createMessage': SAMPLED, 'roots/list': ROOTS };
      const batch = requests.map((request) => ({ jsonrpc: '2.0', id: request.id, result: resultOf[request.method] }));
      // A 2025-03-26 client may answer in one batch; made-up answers in it cost no message at all.
      const madeUp = Array.from({ length: 20 }, (_, n) => ({ jsonrpc: '2.0', id: `instance${n}.round.0`, result: ROOTS }));
      const published = await answerPublishes(async () => {
        const refused = await rawRequest(pair.secondUrl, { headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-03-26' }, body: JSON.stringify(madeUp) });
        assert.equal(refused.status, 400, refused.body);
        const posted = await rawRequest(pair.secondUrl, { headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-03-26' }, body: JSON.stringify(batch) });
        assert.equal(posted.status, 202, posted.body);
      });
      assert.equal(published, 1);
      const final = await stream.next();
      assert.equal(final.id, 41);
      const saw = flowSaw(final.result);
      assert.equal(saw['instance'], 'first', 'the flow of the instance that asked got the answers');
      assert.deepEqual(saw['inputResponses'], { city: { action: 'accept', content: { city: 'Bergen' } }, summary: SAMPLED, folders: ROOTS });
      assert.equal(pair.second.output().includes('ask-execute ask_all'), false, 'the other instance ran no flow');
    } finally {
      stream.close();
    }
  });

  it('refuses an answer that does not fit its question on the instance that receives it, though another one asked', async () => {
    const { stream, asked } = await callAsking(pair.firstUrl, 'ask_once');
    try {
      const published = await answerPublishes(async () => {
        const refused = await rawRequest(pair.secondUrl, { headers: LEGACY_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { city: 'Bergen', admin: true } } }) });
        assert.equal(refused.status, 400, refused.body);
        assert.equal(refused.json().error.code, -32602);
        assert.match(refused.json().error.message, /\/admin: is not allowed/);
      });
      assert.equal(published, 0, 'nothing invalid crossed Redis');
      assert.equal((await rawRequest(pair.secondUrl, { headers: LEGACY_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: asked.id, result: { action: 'decline' } }) })).status, 202);
      assert.deepEqual(flowSaw((await stream.next()).result)['inputResponses'], { city: { action: 'decline' } });
    } finally {
      stream.close();
    }
  });

  it('takes a 2026-07-28 requestState once across both instances: of two retries at once exactly one reaches a flow', async () => {
    const first = (await modernCall(pair.firstUrl, 'ask_once')).json().result;
    assert.equal(first.resultType, 'input_required');
    const retry = { inputResponses: { city: { action: 'accept', content: { city: 'Oslo' } } }, requestState: first.requestState };
    const since = [pair.first.output().length, pair.second.output().length] as const;
    const answers = await Promise.all([pair.firstUrl, pair.secondUrl, pair.firstUrl, pair.secondUrl].map((target, index) => modernCall(target, 'ask_once', retry, ALL_CAPABILITIES, 2 + index)));
    const results = answers.filter((response) => response.json().result);
    const refusals = answers.filter((response) => response.json().error);
    assert.equal(results.length, 1, answers.map((response) => response.body).join('\n'));
    assert.equal(refusals.length, 3);
    for (const refusal of refusals) assert.match(refusal.json().error.message, /has been used already/);
    const winner = flowSaw(results[0]!.json().result)['instance'] === 'first' ? pair.first : pair.second;
    await winner.waitForOutput(/ask-execute ask_once \S+ round=1 /, winner === pair.first ? since[0] : since[1]);
    const rounds = [pair.first.output().slice(since[0]), pair.second.output().slice(since[1])].flatMap((output) => [...output.matchAll(/ask-execute ask_once \S+ round=1 /g)]);
    assert.equal(rounds.length, 1, 'round 1 ran once, on one instance');
  });

  it('takes an answer once: the same answer again is refused with HTTP 400 by the instance that asked', async () => {
    const { stream, asked } = await callAsking(pair.firstUrl, 'ask_once');
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: asked.id, result: { action: 'decline' } });
      assert.equal((await rawRequest(pair.firstUrl, { headers: LEGACY_HEADERS, body })).status, 202);
      assert.deepEqual(flowSaw((await stream.next()).result)['inputResponses'], { city: { action: 'decline' } });
      assert.equal((await rawRequest(pair.firstUrl, { headers: LEGACY_HEADERS, body })).status, 400);
    } finally {
      stream.close();
    }
  });
});
