import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpPaletteError } from '../../lib/core/errors.js';
import { clientCommands, clientName } from '../../lib/editor/client-commands.js';
import { EndpointDirectory, type DirectoryEntry, type EndpointFacts } from '../../lib/editor/endpoint-directory.js';
import { hasPermission } from '../../lib/editor/permissions.js';
import { editorCaller, parseTryItRequest, runTryIt, type TryItEndpoint } from '../../lib/editor/try-it.js';
import { RecentCalls } from '../../lib/telemetry/recent-calls.js';
import { toolTelemetry, type ToolTelemetry } from '../../lib/telemetry/tool-telemetry.js';

const URL = 'http://127.0.0.1:1881/mcp';

function event(endpoint: string, tool: string, client?: string): ToolTelemetry {
  return toolTelemetry({ endpoint, tool, mode: 'flow', outcome: 'success', caller: client ? { client } : {}, durationMs: 2, responseBytes: 0 });
}

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    assert.ok(error instanceof McpPaletteError);
    return error.code;
  }
  return 'no error';
}

describe('clientCommands', () => {
  it('gives the exact commands and snippets for a Local endpoint', () => {
    assert.deepEqual(clientCommands({ name: 'node-red', url: URL }), {
      claude: `claude mcp add --transport http node-red ${URL}`,
      codex: `codex mcp add node-red --url ${URL}`,
      vscode: '{\n  "servers": {\n    "node-red": {\n      "type": "http",\n      "url": "http://127.0.0.1:1881/mcp"\n    }\n  }\n}',
      cursor: '{\n  "mcpServers": {\n    "node-red": {\n      "url": "http://127.0.0.1:1881/mcp"\n    }\n  }\n}',
      notes: [],
    });
  });

  it('tells Codex to register when its metadata document is refused and registration is on', () => {
    const url = 'https://mcp.example.com/team';
    const both = clientCommands({ name: 'team', url, oauth: { claudeDocument: true, codexDocument: true, registration: true } });
    assert.equal(both.codex, `codex mcp add team --url ${url}`);
    assert.deepEqual(both.notes, []);
    const dcr = clientCommands({ name: 'team', url, oauth: { claudeDocument: true, codexDocument: false, registration: true } });
    assert.equal(dcr.codex, `codex mcp add team --url ${url} --oauth-client-registration dcr`);
    const none = clientCommands({ name: 'team', url, oauth: { claudeDocument: false, codexDocument: false, registration: false } });
    assert.equal(none.codex, `codex mcp add team --url ${url}`);
    assert.deepEqual(none.notes, ['claudeCannotSignIn', 'codexCannotSignIn', 'editorsNeedRegistration']);
  });

  it('makes names clients accept and quotes URLs a shell would change', () => {
    assert.equal(clientName('plant tools.v2'), 'plant-tools-v2');
    assert.equal(clientName(' . '), 'node-red');
    assert.equal(clientCommands({ name: 'x', url: "https://h.example/a'b" }).claude, `claude mcp add --transport http x 'https://h.example/a'\\''b'`);
  });
});

describe('RecentCalls', () => {
  it('keeps the newest calls per endpoint within its bound, newest first', () => {
    const recent = new RecentCalls(2, 10);
    recent.record('node-a', event('/a', 'one'), 1);
    recent.record('node-a', event('/a', 'two', 'claude'), 2);
    recent.record('node-a', event('/a', 'three', 'editor'), 3);
    assert.deepEqual(recent.of('node-a'), [
      { at: 3, tool: 'three', caller: 'editor', status: 'success', durationMs: 2 },
      { at: 2, tool: 'two', caller: 'claude', status: 'success', durationMs: 2 },
    ]);
    assert.deepEqual(recent.of('node-none'), []);
    recent.forget('node-a');
    assert.deepEqual(recent.of('node-a'), []);
  });

  it('forgets the endpoint called longest ago when it holds too many', () => {
    const recent = new RecentCalls(5, 2);
    recent.record('a', event('/a', 'x'));
    recent.record('b', event('/b', 'x'));
    recent.record('a', event('/a', 'y'));
    recent.record('c', event('/c', 'x'));
    assert.deepEqual([recent.of('a').length, recent.of('b').length, recent.of('c').length], [2, 0, 1]);
  });
});

describe('Try it', () => {
  it('reads arguments as an object or as JSON text, and refuses the rest with codes', () => {
    assert.deepEqual(parseTryItRequest({ tool: ' echo ', arguments: { a: 1 } }), { tool: 'echo', arguments: { a: 1 }, confirmGroups: false });
    assert.deepEqual(parseTryItRequest({ tool: 'echo', argumentsJson: '{"a":2}', confirmGroups: true }), { tool: 'echo', arguments: { a: 2 }, confirmGroups: true });
    assert.deepEqual(parseTryItRequest({ tool: 'echo', argumentsJson: '  ' }).arguments, {});
    assert.equal(codeOf(() => parseTryItRequest({ tool: 'echo', argumentsJson: '{"a":' })), 'try_invalid_json');
    assert.equal(codeOf(() => parseTryItRequest({ tool: 'echo', argumentsJson: `{"a":"${'x'.repeat(256 * 1024)}"}` })), 'try_arguments_too_large');
    assert.equal(codeOf(() => parseTryItRequest({ tool: 'echo', arguments: { a: 'x'.repeat(256 * 1024) } })), 'try_arguments_too_large');
    const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    assert.equal(codeOf(() => parseTryItRequest({ tool: 'echo', argumentsJson: deep(126) })), 'try_arguments_too_deep');
    assert.equal(codeOf(() => parseTryItRequest({ tool: 'echo', arguments: JSON.parse(deep(126)) })), 'try_arguments_too_deep');
    assert.equal(parseTryItRequest({ tool: 'echo', argumentsJson: deep(125) }).tool, 'echo');
    assert.equal(codeOf(() => parseTryItRequest({ tool: 'echo', argumentsJson: '[1]' })), 'try_arguments_not_object');
    assert.equal(codeOf(() => parseTryItRequest({ tool: 'echo', arguments: 'text' })), 'try_arguments_not_object');
    assert.equal(codeOf(() => parseTryItRequest({ arguments: {} })), 'try_no_tool');
    assert.equal(codeOf(() => parseTryItRequest(null)), 'try_no_tool');
  });

  it('refuses a tool name no tool can have (a line break, a space, too long) before anything runs', () => {
    for (const tool of ['a\nb', 'a b', 'caf\u00e9', 'x'.repeat(129), 'a\u0000']) {
      assert.equal(codeOf(() => parseTryItRequest({ tool, arguments: {} })), 'try_invalid_tool_name', JSON.stringify(tool));
    }
    assert.equal(parseTryItRequest({ tool: 'plant-a.open_valve', arguments: {} }).tool, 'plant-a.open_valve');
  });

  it('runs as the editor; an OAuth endpoint with groups only after confirmation, marked', () => {
    assert.deepEqual(editorCaller({ access: 'local', groups: [] }, 'ada', false), { client: 'editor', editor: { user: 'ada' } });
    assert.deepEqual(editorCaller({ access: 'oauth', groups: [] }, null, false), { client: 'editor', editor: { user: null } });
    assert.equal(codeOf(() => editorCaller({ access: 'oauth', groups: ['staff'] }, 'ada', false)), 'try_groups_confirmation');
    assert.deepEqual(editorCaller({ access: 'oauth', groups: ['staff'] }, 'ada', true), { client: 'editor', editor: { user: 'ada', groupsOverridden: true } });
    // Groups mean nothing on a Local endpoint (nobody signs in), so no confirmation is asked there.
    assert.deepEqual(editorCaller({ access: 'local', groups: ['staff'] }, 'ada', false).editor, { user: 'ada' });
  });

  it('tells success, isError, refused arguments and protocol errors apart', async () => {
    const endpoint = (answer: Awaited<ReturnType<TryItEndpoint['callFromEditor']>>, problems = 0): TryItEndpoint => ({
      toolNamed: () => ({ checkArguments: () => Array.from({ length: problems }, () => ({ pointer: '/n', message: 'must be number' })) }),
      callFromEditor: async () => answer,
    });
    const run = (e: TryItEndpoint) => runTryIt(e, { tool: 't', arguments: {}, confirmGroups: false }, {}, new AbortController().signal);
    assert.equal((await run(endpoint({ result: { content: [] } }))).status, 'success');
    assert.equal((await run(endpoint({ result: { content: [], isError: true } }))).status, 'error');
    const refused = await run(endpoint({ result: { content: [], isError: true } }, 1));
    assert.deepEqual([refused.status, refused.problems], ['invalid_arguments', [{ argument: 'n', message: 'must be number' }]]);
    const fault = await run(endpoint({ error: { code: -32602, message: 'Unknown tool' } }));
    assert.deepEqual([fault.status, fault.error], ['protocol_error', { code: -32602, message: 'Unknown tool' }]);
  });
});

describe('hasPermission (Node-RED scopes)', () => {
  it('grants as Node-RED does', () => {
    assert.equal(hasPermission('*', 'mcp-flow-server.write'), true);
    assert.equal(hasPermission('read', 'mcp-flow-server.read'), true);
    assert.equal(hasPermission('read', 'mcp-flow-server.write'), false);
    assert.equal(hasPermission(['flows.read'], 'mcp-flow-server.read'), false);
    assert.equal(hasPermission(['flows.read', 'mcp-flow-server.write'], 'mcp-flow-server.write'), true);
    assert.equal(hasPermission(undefined, 'mcp-flow-server.read'), false);
  });
});

describe('EndpointDirectory', () => {
  const facts = (id: string, path: string): EndpointFacts => ({
    id, flow: 'tab', name: 'n', path, url: undefined, access: 'local', groups: [], authSlug: undefined, clients: undefined,
    state: 'failed', counts: { tools: 0, resources: 0, prompts: 0 }, toolsVersion: undefined, lastError: { message: 'no runtime', at: 1 }, recentCalls: [],
  });
  const entry = (id: string, path: string): DirectoryEntry => ({ id, facts: () => facts(id, path), live: () => undefined, access: undefined });

  it('lists by path, without commands when there is no URL, and lets only the registering entry leave', () => {
    const directory = new EndpointDirectory();
    const first = entry('b', '/b');
    directory.register(first);
    directory.register(entry('a', '/a'));
    assert.deepEqual(directory.list().map((e) => [e.id, e.commands, e.lastError?.message]), [['a', undefined, 'no runtime'], ['b', undefined, 'no runtime']]);
    const replacement = entry('b', '/b');
    directory.register(replacement);
    directory.unregister(first);
    assert.equal(directory.find('b'), replacement, 'the old node closing after the new one registered leaves it listed');
    directory.unregister(replacement);
    assert.equal(directory.find('b'), undefined);
  });
});
