import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Client } from '@modelcontextprotocol/client';
import { answer, flowServer, prompt, resource, runtime, tab, tool } from '../support/flows.js';
import { connect, postJsonRpc, protocolError, waitForEndpoint, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

const LISTS = 'tab-lists';
const EXTRAS = 'tab-extras';
// The page size (DEFAULTS.listPageSize) is 500: these counts need two and three pages.
const RESOURCES = 1001;
const TEMPLATES = 501;
const PROMPTS = 501;
const TOOLS = 501;

const pad = (index: number) => String(index).padStart(4, '0');

/** One endpoint with lists longer than a page; declarations only (static content, template prompts). */
function listFlows(port: number): FlowNode[] {
  const nodes: FlowNode[] = [tab(LISTS), runtime('rt-lists', port), flowServer('fs-lists', { runtime: 'rt-lists', path: '/lists', z: LISTS })];
  for (let i = 0; i < RESOURCES; i += 1) nodes.push(resource(`r${i}`, { uri: `list://r-${pad(i)}`, endpoint: '/lists', source: 'static', text: 'x', z: LISTS }));
  for (let i = 0; i < TEMPLATES; i += 1) nodes.push(resource(`t${i}`, { uri: `tpl://t-${pad(i)}/{x}`, endpoint: '/lists', source: 'static', text: 'x', z: LISTS }));
  for (let i = 0; i < PROMPTS; i += 1) nodes.push(prompt(`p${i}`, { name: `p_${pad(i)}`, endpoint: '/lists', z: LISTS }));
  for (let i = 0; i < TOOLS; i += 1) nodes.push(tool(`tool${i}`, { name: `tool_${pad(i)}`, endpoint: '/lists', z: LISTS }));
  return nodes;
}

// Offers every machine it knows (the endpoint filters and caps); never answers for "never".
const COMPLETE = `const { ref, argument, context, executionId } = msg.payload;
if (argument.value === 'never') return null;
if (argument.value === 'bad') return { topic: 'mcp-completion-response', payload: { executionId, values: [1, 2] } };
const values = [];
for (let i = 0; i < 150; i += 1) values.push('press-' + String(i).padStart(3, '0'));
values.push('lathe-1', 'ctx-' + (context ? context.arguments.period : 'none'), 'ref-' + (ref.name || ref.uri) + '-' + (msg.mcp.prompt || msg.mcp.resource));
return { topic: 'mcp-completion-response', payload: { executionId, values } };`;

/** Completions answered by a flow, reads and prompts the flow never answers, cancels and telemetry logged. */
function extraFlows(port: number): FlowNode[] {
  const route = {
    id: 'by-topic',
    type: 'switch',
    z: EXTRAS,
    name: 'by topic',
    property: 'topic',
    propertyType: 'msg',
    rules: [
      { t: 'eq', v: 'mcp-completion', vt: 'str' },
      { t: 'regex', v: '-cancel$', vt: 'str', case: false },
    ],
    checkall: 'false',
    repair: false,
    outputs: 2,
    x: 200,
    y: 100,
    wires: [['complete'], ['cancelled']],
  };
  return [
    tab(EXTRAS),
    runtime('rt-extras', port),
    flowServer('fs-extras', { runtime: 'rt-extras', path: '/extras', wires: ['by-topic'], z: EXTRAS }),
    route,
    answer('complete', COMPLETE, 'fs-extras', EXTRAS),
    answer('cancelled', `node.warn('cancel seen: ' + msg.topic + ' ' + msg.payload.reason + ' ' + typeof msg.payload.executionId + ' ' + msg.mcp.endpoint);\nreturn null;`, '', EXTRAS),
    prompt('p-pick', {
      name: 'pick',
      endpoint: '/extras',
      timeout: 1,
      arguments: [
        { name: 'machine', required: true, completion: 'flow' },
        { name: 'period', values: 'day, week, month' },
      ],
      messages: [{ role: 'user', text: 'Report on {{machine}} for the {{period}}' }],
      z: EXTRAS,
    }),
    prompt('p-slow', { name: 'slow_prompt', endpoint: '/extras', source: 'flow', timeout: 1, z: EXTRAS }),
    { ...resource('r-logs', { uri: 'logs://{line}/{day}', endpoint: '/extras', timeout: 1, z: EXTRAS }), completions: 'day: mon, tue', flowCompletions: 'line' },
    resource('r-hang', { uri: 'hang://forever', endpoint: '/extras', timeout: 1, z: EXTRAS }),
    // Refused at deploy (priority above 1): red status, the rest of the endpoint still served.
    { ...resource('r-bad-priority', { uri: 'docs://bad', endpoint: '/extras', source: 'static', text: 'x', z: EXTRAS }), priority: '7' },
    { ...resource('r-manual', { uri: 'docs://manual', endpoint: '/extras', source: 'static', text: 'read me', z: EXTRAS }), size: '2048', audience: 'both', priority: '0.8' },
    { id: 'metrics', type: 'mcp-server-metrics', z: EXTRAS, name: '', runtime: 'rt-extras', report: 'all', x: 100, y: 300, wires: [['telemetry']] },
    answer('telemetry', `node.warn('telemetry seen: ' + msg.topic + ' ' + JSON.stringify(msg.payload));\nreturn null;`, '', EXTRAS),
  ];
}

/**
 * Walks a list page by page with explicit cursors, as a client that pages itself does. The official
 * client fetches all pages when asked without a cursor, so the first page is fetched raw; every
 * later page goes through the client in its era with the cursor of the page before.
 */
async function walk<T>(url: string, method: string, field: string, next: (cursor: string) => Promise<Record<string, unknown>>, key: (item: any) => T): Promise<T[][]> {
  const first = (await postJsonRpc(url, { jsonrpc: '2.0', id: 1, method, params: {} })).json().result as Record<string, unknown>;
  const pages: T[][] = [(first[field] as unknown[]).map(key)];
  let cursor = first['nextCursor'] as string | undefined;
  while (cursor !== undefined && pages.length < 10) {
    const page = await next(cursor);
    pages.push((page[field] as unknown[]).map(key));
    cursor = page['nextCursor'] as string | undefined;
  }
  return pages;
}

describe(`paged lists, flow-answered completions, cancels and telemetry of content on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let lists: string;
  let extras: string;

  before(async () => {
    const listPort = await freePort();
    const extrasPort = await freePort();
    nodeRed = await startNodeRed([...listFlows(listPort), ...extraFlows(extrasPort)]);
    lists = `http://127.0.0.1:${listPort}/lists`;
    extras = `http://127.0.0.1:${extrasPort}/extras`;
    await Promise.all([waitForEndpoint(lists, 60_000), waitForEndpoint(extras)]);
  });
  after(() => nodeRed?.stop());

  for (const era of ['legacy', 'modern'] as Era[]) {
    describe(`with the official MCP client, ${era} era`, () => {
      let client: Client;
      before(async () => {
        client = await connect(lists, era);
      });
      after(() => client?.close());

      it('pages every long list with cursors, each item once, in order', async () => {
        const resources = await walk(lists, 'resources/list', 'resources', (cursor) => client.listResources({ cursor }), (r) => r.uri);
        assert.deepEqual(resources.map((page) => page.length), [500, 500, 1]);
        assert.deepEqual(resources.flat(), Array.from({ length: RESOURCES }, (_, i) => `list://r-${pad(i)}`));
        const templates = await walk(lists, 'resources/templates/list', 'resourceTemplates', (cursor) => client.listResourceTemplates({ cursor }), (r) => r.uriTemplate);
        assert.deepEqual(templates.map((page) => page.length), [500, 1]);
        assert.equal(new Set(templates.flat()).size, TEMPLATES);
        const prompts = await walk(lists, 'prompts/list', 'prompts', (cursor) => client.listPrompts({ cursor }), (p) => p.name);
        assert.deepEqual(prompts.map((page) => page.length), [500, 1]);
        assert.equal(new Set(prompts.flat()).size, PROMPTS);
        const tools = await walk(lists, 'tools/list', 'tools', (cursor) => client.listTools({ cursor }), (t) => t.name);
        assert.deepEqual(tools.map((page) => page.length), [500, 1]);
        assert.deepEqual(tools.flat(), Array.from({ length: TOOLS }, (_, i) => `tool_${pad(i)}`));
      });

      it("gives the client's own walk (no cursor) every item", async () => {
        assert.equal((await client.listResources()).resources.length, RESOURCES);
        assert.equal((await client.listTools()).tools.length, TOOLS);
      });

      it('refuses a cursor it did not issue, or one of another list, with -32602', async () => {
        const made = await protocolError(client.listPrompts({ cursor: 'not-a-cursor' }));
        assert.equal(made.code, -32602);
        assert.match(made.message, /Invalid cursor for prompts\/list: use the nextCursor of a previous prompts\/list answer, or call prompts\/list without a cursor/);
        const { nextCursor } = (await postJsonRpc(lists, { jsonrpc: '2.0', id: 1, method: 'resources/list', params: {} })).json().result;
        const crossed = await protocolError(client.listTools({ cursor: nextCursor! }));
        assert.equal(crossed.code, -32602);
        assert.match(crossed.message, /Invalid cursor for tools\/list/);
      });
    });
  }

  it('answers a list that fits on one page with no nextCursor at all', async () => {
    const raw = await postJsonRpc(extras, { jsonrpc: '2.0', id: 1, method: 'resources/list', params: {} });
    const result = raw.json().result;
    assert.deepEqual(Object.keys(result), ['resources']);
  });

  for (const era of ['legacy', 'modern'] as Era[]) {
    describe(`flow-answered completions, ${era} era`, () => {
      let client: Client;
      before(async () => {
        client = await connect(extras, era);
      });
      after(() => client?.close());

      it('sends mcp-completion to the flow and filters and caps what it answers', async () => {
        const presses = await client.complete({ ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'machine', value: 'PRESS-1' } });
        assert.deepEqual(presses.completion, {
          values: Array.from({ length: 50 }, (_, i) => `press-${String(100 + i)}`),
          total: 50,
          hasMore: false,
        });
        const all = await client.complete({ ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'machine', value: 'press' } });
        assert.equal(all.completion.values.length, 100);
        assert.equal(all.completion.total, 150);
        assert.equal(all.completion.hasMore, true);
      });

      it('hands the flow the other arguments and the msg.mcp of the prompt or template', async () => {
        const withContext = await client.complete({
          ref: { type: 'ref/prompt', name: 'pick' },
          argument: { name: 'machine', value: 'ctx' },
          context: { arguments: { period: 'week' } },
        });
        assert.deepEqual(withContext.completion.values, ['ctx-week']);
        const template = await client.complete({ ref: { type: 'ref/resource', uri: 'logs://{line}/{day}' }, argument: { name: 'line', value: 'ref' } });
        assert.deepEqual(template.completion.values, ['ref-logs://{line}/{day}-logs://{line}/{day}']);
      });

      it('keeps completing from the editor list where no flow was chosen', async () => {
        const periods = await client.complete({ ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'period', value: 'w' } });
        assert.deepEqual(periods.completion, { values: ['week'], total: 1, hasMore: false });
        const days = await client.complete({ ref: { type: 'ref/resource', uri: 'logs://{line}/{day}' }, argument: { name: 'day', value: '' } });
        assert.deepEqual(days.completion.values, ['mon', 'tue']);
      });

      it('ends a completion the flow never answers at the time limit, with a clear error and a cancel message', async () => {
        const since = nodeRed.output().length;
        const error = await protocolError(client.complete({ ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'machine', value: 'never' } }));
        assert.equal(error.code, -32603);
        assert.match(error.message, /Completion of "machine" for prompt "pick" was not answered within 1 s/);
        await nodeRed.waitForOutput('cancel seen: mcp-completion-cancel timeout string /extras', since);
      });

      it('tells the flow when a read or a prompt it never answered is abandoned', async () => {
        const since = nodeRed.output().length;
        const read = await protocolError(client.readResource({ uri: 'hang://forever' }));
        assert.match(read.message, /Resource hang:\/\/forever was not answered within 1 s/);
        await nodeRed.waitForOutput('cancel seen: mcp-resource-cancel timeout string /extras', since);
        const got = await protocolError(client.getPrompt({ name: 'slow_prompt' }));
        assert.match(got.message, /Prompt "slow_prompt" was not answered within 1 s/);
        await nodeRed.waitForOutput('cancel seen: mcp-prompt-cancel timeout string /extras', since);
      });

      it('refuses a flow answer that is not a list of strings with -32603 saying so', async () => {
        const error = await protocolError(client.complete({ ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'machine', value: 'bad' } }));
        assert.equal(error.code, -32603);
        assert.match(error.message, /Completion of "machine" for prompt "pick": the flow answered without values: a list of strings/);
      });

      it('lists the size and annotations set in the editor', async () => {
        const { resources } = await client.listResources();
        const manual = resources.find((r) => r.uri === 'docs://manual');
        assert.equal(manual?.size, 2048);
        assert.deepEqual(manual?.annotations, { audience: ['user', 'assistant'], priority: 0.8 });
        assert.equal(resources.find((r) => r.uri === 'docs://bad'), undefined);
        await nodeRed.waitForOutput(/\[mcp-resource:r-bad-priority\][^\n]*Priority 7 must be a number from 0 to 1/);
      });
    });
  }

  it('reports reads, prompts and completions to a metrics node that asked for them, with their kind', async () => {
    const since = nodeRed.output().length;
    const client = await connect(extras, 'modern');
    try {
      await client.readResource({ uri: 'docs://manual' });
      await client.getPrompt({ name: 'pick', arguments: { machine: 'press-1' } });
      await client.complete({ ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'machine', value: 'lathe' } });
      await protocolError(client.readResource({ uri: 'docs://nowhere' }));
    } finally {
      await client.close();
    }
    // The last of the four calls' events: the one before may still be arriving from the previous test
    // (telemetry leaves the metrics node on its own turn), so the events are picked by kind, not by count.
    await nodeRed.waitForOutput(/telemetry seen: mcp-resource-telemetry \{[^\n]*"unknown_resource"/, since);
    const seen = await nodeRed.waitForMatches(/telemetry seen: (mcp-\w+-telemetry) (\{[^\n]*\})/g, 4, since);
    const events = seen.map((match) => ({ topic: match[1], ...JSON.parse(match[2]!) }));
    const pick = (kind: string, status: string) => events.find((e) => e.kind === kind && e.status === status);
    assert.deepEqual(
      { ...pick('resource', 'success'), durationMs: 0 },
      { topic: 'mcp-resource-telemetry', kind: 'resource', endpoint: '/extras', name: 'docs://manual', user: 'unknown', client: 'unknown', mode: 'static', status: 'success', durationMs: 0, responseBytes: pick('resource', 'success').responseBytes },
    );
    assert.ok(pick('resource', 'success').responseBytes > 0);
    assert.equal(pick('prompt', 'success')?.topic, 'mcp-prompt-telemetry');
    assert.equal(pick('prompt', 'success')?.name, 'pick');
    assert.equal(pick('completion', 'success')?.mode, 'flow');
    assert.equal(pick('resource', 'unknown_resource')?.name, 'unknown');
  });
});
