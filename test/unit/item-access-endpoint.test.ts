import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AccessPolicy } from '../../lib/access/access-policy.js';
import { silentLogger } from '../../lib/core/logger.js';
import type { CallFinished } from '../../lib/mcp/calls/call-types.js';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import type { ContentFinished } from '../../lib/mcp/content/content-types.js';
import { parsePromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { parseResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { McpEndpoint } from '../../lib/mcp/endpoint/mcp-endpoint.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';
import { rawAnswer, serveEndpoint, stopServed, type SentRequest, type ServedEndpoint } from '../support/served-endpoint.js';
import { openStream } from '../support/sse-stream.js';

// Items limited to groups, on one endpoint served twice: directly (plain requests skip the SDK) and
// all through the SDK. The access policy here stands in for the OAuth bearer check (tested on its
// own and end to end in test/runtime/item-access.test.ts): it takes the caller's groups from a
// header. What is checked: each caller lists only its items, and an item it may not use is answered
// exactly as a name nobody serves — same status, headers and bytes but for the name — on both paths
// and in both eras, while telemetry counts it as `not_allowed`.

const GROUPS_HEADER = 'x-test-groups';

/** Callers are told apart by the groups header; each gets its own subject. */
const headerAccess: AccessPolicy = {
  check(req) {
    const groups = String(req.headers[GROUPS_HEADER] ?? '').split(',').filter(Boolean);
    return { allowed: true, caller: { subject: `user-of-${groups.join('+') || 'none'}`, groups, client: 'test' } };
  },
};

const ANY = '{"type":"object"}';
const TOOLS = () =>
  new ToolCatalog([
    parseToolConfig({ toolName: 'read_state', endpoint: '/mcp', inputSchema: ANY }),
    parseToolConfig({ toolName: 'set_point', endpoint: '/mcp', inputSchema: ANY, allowedGroups: 'maintenance' }),
    parseToolConfig({ toolName: 'plant_a_valve', endpoint: '/mcp', inputSchema: ANY, allowedGroups: 'plant-a-operators, maintenance' }),
    // Asks the client, so every call of it takes the SDK's path even on the direct endpoint.
    parseToolConfig({ toolName: 'confirm_stop', endpoint: '/mcp', inputSchema: ANY, allowedGroups: 'maintenance', asks: 'elicitation' }),
  ]);
const CONTENT = () =>
  new ContentCatalog(
    [
      parseResourceConfig({ resourceName: 'state', uri: 'plant://state', endpoint: '/mcp', source: 'static', text: 'all well' }),
      parseResourceConfig({ resourceName: 'secret', uri: 'plant://secret', endpoint: '/mcp', source: 'static', text: 'the code', allowedGroups: 'maintenance' }),
      parseResourceConfig({ resourceName: 'logs', uri: 'plant://logs/{day}', endpoint: '/mcp', source: 'static', text: 'log of {{day}}', allowedGroups: 'plant-a-operators', completions: 'day: monday, tuesday' }),
    ],
    [
      parsePromptConfig({ promptName: 'summary', endpoint: '/mcp', messages: [{ role: 'user', text: 'Summarise' }] }),
      parsePromptConfig({ promptName: 'maintenance_plan', endpoint: '/mcp', messages: [{ role: 'user', text: 'Plan for {{machine}}' }], arguments: [{ name: 'machine', values: 'press, lathe' }], allowedGroups: 'maintenance' }),
    ],
  );

interface Served extends ServedEndpoint {
  calls: CallFinished[];
  content: ContentFinished[];
}

async function serve(directAnswers: boolean): Promise<Served> {
  const calls: CallFinished[] = [];
  const content: ContentFinished[] = [];
  const endpoint: McpEndpoint = new McpEndpoint({
    serverName: 'item-access-test',
    path: '/mcp',
    access: headerAccess,
    maxInFlight: 4,
    logger: silentLogger,
    directAnswers,
    execute: (request) => setImmediate(() => endpoint.settle(request.executionId, { result: `done ${request.toolName}` })),
    onCallFinished: (event) => calls.push(event),
    onContentFinished: (event) => content.push(event),
  });
  endpoint.setCatalog(TOOLS());
  endpoint.setContent(CONTENT());
  return { ...(await serveEndpoint(endpoint)), calls, content };
}

type Era = 'legacy' | 'modern';
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

type Sent = SentRequest;

function request(era: Era, groups: string, method: string, params: Record<string, unknown>): Sent {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', [GROUPS_HEADER]: groups };
  if (era === 'legacy') return { body: { jsonrpc: '2.0', id: 7, method, params }, headers };
  const name = params['uri'] ?? params['name'];
  return {
    body: { jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: MODERN_META } },
    headers: { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}) },
  };
}

/** The JSON-RPC message in an answer (a JSON body, or the last event of a stream). */
function messageOf(answer: string): { result?: Record<string, unknown>; error?: { code: number; message: string } } {
  const body = answer.slice(answer.indexOf('\n\n') + 2);
  if (body.startsWith('{')) return JSON.parse(body);
  const data = body.split('\n').filter((line) => line.startsWith('data: {'));
  return JSON.parse(data[data.length - 1]!.slice(6));
}

let direct: Served;
let viaSdk: Served;
before(async () => ([direct, viaSdk] = await Promise.all([serve(true), serve(false)])));
after(() => stopServed([direct, viaSdk]));

/** The same request to both endpoints; both answers must be the same (the differential check). */
async function both(sent: Sent): Promise<string> {
  const [fast, sdk] = [await rawAnswer(direct.port, sent), await rawAnswer(viaSdk.port, sent)];
  assert.equal(fast, sdk, 'the direct path and the SDK path answer alike');
  return fast;
}

const EVERYONE = 'staff';
const MAINTENANCE = 'staff,maintenance';
const OPERATOR = 'staff,plant-a-operators';

for (const era of ['legacy', 'modern'] as const) {
  describe(`items limited to groups (${era === 'legacy' ? '2025-11-25' : '2026-07-28'})`, () => {
    it('lists each caller its own tools, resources, templates and prompts', async () => {
      const listed = async (groups: string, method: string, key: string, field: string) => {
        const answer = await both(request(era, groups, method, {}));
        return (messageOf(answer).result![key] as Array<Record<string, string>>).map((item) => item[field]);
      };
      assert.deepEqual(await listed(EVERYONE, 'tools/list', 'tools', 'name'), ['read_state']);
      assert.deepEqual(await listed(MAINTENANCE, 'tools/list', 'tools', 'name'), ['confirm_stop', 'plant_a_valve', 'read_state', 'set_point']);
      assert.deepEqual(await listed(OPERATOR, 'tools/list', 'tools', 'name'), ['plant_a_valve', 'read_state']);
      assert.deepEqual(await listed(EVERYONE, 'resources/list', 'resources', 'uri'), ['plant://state']);
      assert.deepEqual(await listed(MAINTENANCE, 'resources/list', 'resources', 'uri'), ['plant://secret', 'plant://state']);
      assert.deepEqual(await listed(EVERYONE, 'resources/templates/list', 'resourceTemplates', 'uriTemplate'), []);
      assert.deepEqual(await listed(OPERATOR, 'resources/templates/list', 'resourceTemplates', 'uriTemplate'), ['plant://logs/{day}']);
      assert.deepEqual(await listed(EVERYONE, 'prompts/list', 'prompts', 'name'), ['summary']);
      assert.deepEqual(await listed(MAINTENANCE, 'prompts/list', 'prompts', 'name'), ['maintenance_plan', 'summary']);
    });

    it('lets a member call, read and get what its groups allow', async () => {
      assert.equal(JSON.stringify(messageOf(await both(request(era, MAINTENANCE, 'tools/call', { name: 'set_point', arguments: {} }))).result!['content']), '[{"type":"text","text":"done set_point"}]');
      assert.equal(JSON.stringify(messageOf(await both(request(era, OPERATOR, 'tools/call', { name: 'plant_a_valve', arguments: {} }))).result!['content']), '[{"type":"text","text":"done plant_a_valve"}]');
      assert.match(JSON.stringify(messageOf(await both(request(era, OPERATOR, 'resources/read', { uri: 'plant://logs/monday' }))).result), /log of monday/);
      assert.match(JSON.stringify(messageOf(await both(request(era, MAINTENANCE, 'prompts/get', { name: 'maintenance_plan', arguments: { machine: 'press' } }))).result), /Plan for press/);
    });

    // The red team: a caller guessing names learns nothing from the answers. Each hidden name is
    // compared with a name nobody serves; with the name itself blanked out, the answers are one text.
    const guesses: Array<[string, (name: string) => Record<string, unknown>, string, string, string]> = [
      ['a tool of another group', (name) => ({ name, arguments: {} }), 'tools/call', 'set_point', 'set_pint0'],
      ['a tool that asks, of another group (SDK path on both)', (name) => ({ name, arguments: {} }), 'tools/call', 'confirm_stop', 'confirm_stap'],
      ['a fixed resource of another group', (uri) => ({ uri }), 'resources/read', 'plant://secret', 'plant://sacret'],
      ['a template resource of another group', (uri) => ({ uri }), 'resources/read', 'plant://logs/monday', 'plant://lags/monday'],
      ['a prompt of another group', (name) => ({ name, arguments: { machine: 'press' } }), 'prompts/get', 'maintenance_plan', 'maintenance_plam'],
    ];
    for (const [what, params, method, hidden, absent] of guesses) {
      it(`answers a guess of ${what} exactly as a name nobody serves, and counts it as a refusal`, async () => {
        const before = { calls: direct.calls.length, content: direct.content.length };
        const refused = await both(request(era, EVERYONE, method, params(hidden)));
        const unknown = await both(request(era, EVERYONE, method, params(absent)));
        assert.equal(refused.split(hidden).join('NAME'), unknown.split(absent).join('NAME'));
        assert.ok(messageOf(refused).error, 'a protocol error, as for an unknown name');
        const events = method === 'tools/call' ? direct.calls.slice(before.calls) : direct.content.slice(before.content);
        assert.deepEqual(events.map((event) => [event.outcome, 'tool' in event ? event.tool : event.name]), [
          ['not_allowed', method === 'tools/call' ? hidden : method === 'prompts/get' ? hidden : hidden.startsWith('plant://logs') ? 'plant://logs/{day}' : hidden],
          [method === 'tools/call' ? 'unknown_tool' : method === 'prompts/get' ? 'unknown_prompt' : 'unknown_resource', 'unknown'],
        ]);
      });
    }

    it('answers a completion of a hidden prompt or template as one of an unknown one', async () => {
      const complete = (ref: Record<string, string>) => both(request(era, EVERYONE, 'completion/complete', { ref, argument: { name: 'machine', value: 'p' } }));
      const hiddenPrompt = await complete({ type: 'ref/prompt', name: 'maintenance_plan' });
      const absentPrompt = await complete({ type: 'ref/prompt', name: 'maintenance_plam' });
      assert.equal(hiddenPrompt.replace('maintenance_plan', 'NAME'), absentPrompt.replace('maintenance_plam', 'NAME'));
      const hiddenTemplate = await complete({ type: 'ref/resource', uri: 'plant://logs/{day}' });
      const absentTemplate = await complete({ type: 'ref/resource', uri: 'plant://lags/{day}' });
      assert.equal(hiddenTemplate.replace('plant://logs/{day}', 'NAME'), absentTemplate.replace('plant://lags/{day}', 'NAME'));
    });
  });
}

describe('list-changed news per caller (2026-07-28 subscriptions/listen)', () => {
  const listen = (groups: string) => {
    const sent = request('modern', groups, 'subscriptions/listen', { notifications: { toolsListChanged: true, promptsListChanged: true } });
    return openStream(`http://127.0.0.1:${direct.port}/mcp`, sent.body, sent.headers);
  };

  it('tells each caller only of the lists that changed in its own view', async () => {
    const [everyone, maintenance] = [await listen(EVERYONE), await listen(MAINTENANCE)];
    try {
      for (const stream of [everyone, maintenance]) assert.equal((await stream.next()).method, 'notifications/subscriptions/acknowledged');
      // A deploy that changes only a tool of maintenance: news for maintenance alone.
      const tools = TOOLS();
      const changedTool = parseToolConfig({ toolName: 'set_point', endpoint: '/mcp', inputSchema: ANY, description: 'now with limits', allowedGroups: 'maintenance' });
      direct.endpoint.setCatalog(new ToolCatalog([...tools.listings.filter((listed) => listed.name !== 'set_point').map((listed) => tools.find(listed.name)!), changedTool]));
      direct.endpoint.listsChanged(['tools']);
      // Then one that changes a prompt everyone sees: news for both.
      const content = CONTENT();
      const prompts = content.promptsResult.prompts.map((listed) => listed.name);
      assert.deepEqual(prompts, ['maintenance_plan', 'summary']);
      direct.endpoint.setContent(new ContentCatalog([...content.resourcePages.all].map((listed) => content.findResource(listed.uri)!.resource).concat(content.templatePages.all.map((listed) => content.findTemplate(listed.uriTemplate)!)), [
        parsePromptConfig({ promptName: 'summary', endpoint: '/mcp', messages: [{ role: 'user', text: 'Summarise briefly' }], description: 'changed' }),
        parsePromptConfig({ promptName: 'maintenance_plan', endpoint: '/mcp', messages: [{ role: 'user', text: 'Plan for {{machine}}' }], arguments: [{ name: 'machine', values: 'press, lathe' }], allowedGroups: 'maintenance' }),
      ]));
      direct.endpoint.listsChanged(['prompts']);
      assert.equal((await maintenance.next()).method, 'notifications/tools/list_changed');
      assert.equal((await maintenance.next()).method, 'notifications/prompts/list_changed');
      // The first news everyone hears is the prompts': the tools change was not in its view.
      assert.equal((await everyone.next()).method, 'notifications/prompts/list_changed');
    } finally {
      everyone.close();
      maintenance.close();
      direct.endpoint.setCatalog(TOOLS());
      direct.endpoint.setContent(CONTENT());
    }
  });

  it("tells each caller of another instance's deploy only when it is among the audiences that instance named", async () => {
    const [everyone, maintenance] = [await listen(EVERYONE), await listen(MAINTENANCE)];
    try {
      for (const stream of [everyone, maintenance]) assert.equal((await stream.next()).method, 'notifications/subscriptions/acknowledged');
      // Heard through the storage: a tool of maintenance changed there, then a prompt everyone sees.
      direct.endpoint.listsChanged(['tools'], { audiences: { tools: [['maintenance']] } });
      direct.endpoint.listsChanged(['prompts'], { audiences: { prompts: [null] } });
      // An older instance names no audiences: everyone hears, as before.
      direct.endpoint.listsChanged(['tools'], { audiences: undefined });
      assert.deepEqual([(await maintenance.next()).method, (await maintenance.next()).method, (await maintenance.next()).method], [
        'notifications/tools/list_changed',
        'notifications/prompts/list_changed',
        'notifications/tools/list_changed',
      ]);
      assert.deepEqual([(await everyone.next()).method, (await everyone.next()).method], ['notifications/prompts/list_changed', 'notifications/tools/list_changed']);
    } finally {
      everyone.close();
      maintenance.close();
    }
  });
});
