// The admin routes behind the editor's MCP sidebar, against a real Node-RED with adminAuth: who may
// list and run, what a Try-it call is (the real endpoint and flow, marked `editor`, in telemetry and
// the audit log), and how bad input is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';
import { LOCAL_SERVER, PIXEL_PNG, TEAM_SERVER, sidebarFlow } from '../support/sidebar-flow.js';

const TOKENS = { write: 'sidebar-write-token', read: 'sidebar-flows-read-token', viewer: 'sidebar-viewer-token' };

describe(`MCP sidebar admin routes on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let port: number;

  const admin = async (path: string, token: string, body?: unknown) => {
    const response = await fetch(`${nodeRed.adminUrl}/mcp-sidebar/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : text };
  };
  const tryIt = (endpoint: string, body: unknown, token = TOKENS.write) => admin(`endpoints/${endpoint}/try`, token, body);
  const endpoints = async () => (await admin('endpoints', TOKENS.write)).body.endpoints as any[];

  before(async () => {
    port = await freePort();
    nodeRed = await startNodeRed(sidebarFlow(port), { adminTokens: TOKENS, env: { MCP_SIDEBAR_SECRET: 'unused' } });
    await waitForEndpoint(`http://127.0.0.1:${port}/mcp`);
    await waitForEndpoint(`http://127.0.0.1:${port}/team`);
  });
  after(() => nodeRed?.stop());

  it('lists every endpoint with URL, access, groups, state, counts and the exact client commands', async () => {
    const list = await endpoints();
    const local = list.find((e) => e.id === LOCAL_SERVER);
    const team = list.find((e) => e.id === TEAM_SERVER);
    const base = `http://127.0.0.1:${port}`;
    assert.deepEqual(
      { url: local.url, name: local.name, access: local.access, groups: local.groups, state: local.state, tools: local.tools, resources: local.resources, prompts: local.prompts, lastError: local.lastError },
      { url: `${base}/mcp`, name: 'plant tools', access: 'local', groups: [], state: 'serving', tools: 3, resources: 0, prompts: 0, lastError: undefined },
    );
    assert.deepEqual(local.commands, {
      claude: `claude mcp add --transport http plant-tools ${base}/mcp`,
      codex: `codex mcp add plant-tools --url ${base}/mcp`,
      vscode: JSON.stringify({ servers: { 'plant-tools': { type: 'http', url: `${base}/mcp` } } }, null, 2),
      cursor: JSON.stringify({ mcpServers: { 'plant-tools': { url: `${base}/mcp` } } }, null, 2),
      notes: [],
    });
    assert.deepEqual(
      { access: team.access, groups: team.groups, authSlug: team.authSlug, state: team.state, tools: team.tools, resources: team.resources, prompts: team.prompts },
      { access: 'oauth', groups: ['staff'], authSlug: 'team', state: 'serving', tools: 1, resources: 2, prompts: 1 },
    );
    // claude.ai is allowed, chatgpt.com is not and registration is off: Codex cannot sign in, and says so.
    assert.equal(team.commands.codex, `codex mcp add team --url ${base}/team`);
    assert.deepEqual(team.commands.notes, ['codexCannotSignIn', 'editorsNeedRegistration']);
  });

  it('lists the tools of a serving endpoint as tools/list shows them', async () => {
    const { status, body } = await admin(`endpoints/${LOCAL_SERVER}/tools`, TOKENS.write);
    assert.equal(status, 200);
    assert.deepEqual(body.tools.map((t: { name: string }) => t.name), ['broken', 'echo', 'pixel']);
    assert.deepEqual(body.tools.find((t: { name: string }) => t.name === 'echo').inputSchema.required, ['text']);
  });

  it('lists the resources, templates and prompts of a serving endpoint with who may use each; read permission only', async () => {
    const content = `endpoints/${TEAM_SERVER}/content`;
    const { status, body } = await admin(content, TOKENS.viewer);
    assert.equal(status, 200);
    assert.deepEqual(body.items, [
      { kind: 'resource', name: 'manual', uri: 'plant://manual' },
      { kind: 'template', name: 'readings', uri: 'plant://readings/{sensor}', allowedGroups: ['staff-admins'] },
      { kind: 'prompt', name: 'shift_report', allowedGroups: ['maintenance', 'staff-admins'] },
    ]);
    assert.deepEqual((await admin(`endpoints/${LOCAL_SERVER}/content`, TOKENS.viewer)).body, { items: [] });
    const refused = await admin(content, TOKENS.read);
    assert.deepEqual([refused.status, refused.body.error], [403, 'permission_denied']);
    assert.equal((await fetch(`${nodeRed.adminUrl}/mcp-sidebar/${content}`)).status, 401);
    const unknown = await admin('endpoints/no-such-node/content', TOKENS.viewer);
    assert.deepEqual([unknown.status, unknown.body.error], [404, 'try_unknown_endpoint']);
  });

  it('runs a tool through the real flow as the editor: structured result, msg.mcp, telemetry and audit', async () => {
    const since = nodeRed.output().length;
    const { status, body } = await tryIt(LOCAL_SERVER, { tool: 'echo', arguments: { text: 'ab', times: 2 } });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.status, 'success');
    assert.equal(typeof body.durationMs, 'number');
    assert.equal(body.result.structuredContent.echoed, 'abab');
    const caller = body.result.structuredContent.caller;
    // The flow sees the editor user, never a subject, e-mail or groups.
    assert.deepEqual(
      { client: caller.client, editor: caller.editor, endpoint: caller.endpoint, tool: caller.tool, subject: caller.subject, groups: caller.groups },
      { client: 'editor', editor: { user: 'harness' }, endpoint: '/mcp', tool: 'echo', subject: undefined, groups: undefined },
    );
    await nodeRed.waitForOutput('echo ran for editor', since);
    const [audit] = await nodeRed.waitForMatches(/\{"event":"mcp\.tool_call"[^\n]*\}/, 1, since);
    const line = JSON.parse(audit![0]);
    assert.deepEqual({ outcome: line.outcome, tool: line.tool, client: line.client, editor: line.editor }, { outcome: 'success', tool: 'echo', client: 'editor', editor: { user: 'harness' } });
    assert.ok(!audit![0].includes('abab') && !audit![0].includes('"ab"'), 'no arguments or results in the audit line');
    const recent = (await endpoints()).find((e) => e.id === LOCAL_SERVER).recentCalls;
    assert.deepEqual({ tool: recent[0].tool, caller: recent[0].caller, status: recent[0].status }, { tool: 'echo', caller: 'editor', status: 'success' });
  });

  it('shows an isError result and an image as the endpoint sends them', async () => {
    const broken = await tryIt(LOCAL_SERVER, { tool: 'broken', argumentsJson: '{}' });
    assert.equal(broken.status, 200);
    assert.equal(broken.body.status, 'error');
    assert.equal(broken.body.result.isError, true);
    assert.match(broken.body.result.content[0].text, /the pump is offline/);
    const pixel = await tryIt(LOCAL_SERVER, { tool: 'pixel' });
    assert.deepEqual(pixel.body.result.content[1], { type: 'image', mimeType: 'image/png', data: PIXEL_PNG });
  });

  it('refuses arguments that are not JSON, or not an object, before anything runs', async () => {
    const before = (await endpoints()).find((e) => e.id === LOCAL_SERVER).recentCalls.length;
    const invalid = await tryIt(LOCAL_SERVER, { tool: 'echo', argumentsJson: '{"text": ' });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.error, 'try_invalid_json');
    assert.match(invalid.body.message, /^The arguments are not valid JSON: /);
    const list = await tryIt(LOCAL_SERVER, { tool: 'echo', argumentsJson: '["ab"]' });
    assert.deepEqual([list.status, list.body.error, list.body.message], [400, 'try_arguments_not_object', 'The arguments must be a JSON object, not array.']);
    const noTool = await tryIt(LOCAL_SERVER, { arguments: {} });
    assert.deepEqual([noTool.status, noTool.body.error], [400, 'try_no_tool']);
    // A body that is not JSON at all is Node-RED's own 400.
    assert.equal((await tryIt(LOCAL_SERVER, '{"tool": ')).status, 400);
    assert.equal((await endpoints()).find((e) => e.id === LOCAL_SERVER).recentCalls.length, before, 'nothing reached the endpoint');
  });

  it('reports schema-violating arguments one problem per argument, and the flow does not run', async () => {
    const since = nodeRed.output().length;
    const { status, body } = await tryIt(LOCAL_SERVER, { tool: 'echo', arguments: { times: 0, loud: 'yes' } });
    assert.equal(status, 200);
    assert.equal(body.status, 'invalid_arguments');
    assert.equal(body.result.isError, true);
    const named = body.problems.map((p: { argument: string }) => p.argument).sort();
    assert.deepEqual(named, ['loud', 'text', 'times'], JSON.stringify(body.problems));
    assert.deepEqual(body.problems.find((p: { argument: string }) => p.argument === 'text'), { argument: 'text', message: 'is required' });
    const recent = (await endpoints()).find((e) => e.id === LOCAL_SERVER).recentCalls;
    assert.deepEqual([recent[0].tool, recent[0].status], ['echo', 'invalid_arguments']);
    assert.equal(nodeRed.output().slice(since).includes('echo ran for'), false, 'the flow was not invoked');
  });

  it('refuses a tool name no tool can have with 400 and a clear message, not an internal error', async () => {
    const before = (await endpoints()).find((e) => e.id === LOCAL_SERVER).recentCalls.length;
    const newline = await tryIt(LOCAL_SERVER, { tool: 'a\nb', arguments: {} });
    assert.deepEqual([newline.status, newline.body.error], [400, 'try_invalid_tool_name'], JSON.stringify(newline.body));
    assert.equal(newline.body.message, 'No tool can be named "a\\nb": tool names are 1 to 128 letters, digits, _, - and . characters.');
    const spaced = await tryIt(LOCAL_SERVER, { tool: 'open valve', arguments: {} });
    assert.deepEqual([spaced.status, spaced.body.error], [400, 'try_invalid_tool_name']);
    assert.equal((await endpoints()).find((e) => e.id === LOCAL_SERVER).recentCalls.length, before, 'nothing reached the endpoint');
  });

  it('answers an unknown tool with the protocol error a client gets', async () => {
    const { status, body } = await tryIt(LOCAL_SERVER, { tool: 'nope', arguments: {} });
    assert.equal(status, 200);
    assert.equal(body.status, 'protocol_error');
    assert.equal(body.error.code, -32602);
  });

  it('runs on an OAuth endpoint with groups only when the editor user confirms, and says so to the flow', async () => {
    const refused = await tryIt(TEAM_SERVER, { tool: 'whoami', arguments: {} });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'try_groups_confirmation');
    assert.match(refused.body.message, /admits only the groups staff/);
    const since = nodeRed.output().length;
    const confirmed = await tryIt(TEAM_SERVER, { tool: 'whoami', arguments: {}, confirmGroups: true });
    assert.equal(confirmed.body.status, 'success', JSON.stringify(confirmed.body));
    const seen = JSON.parse(confirmed.body.result.content[0].text);
    assert.deepEqual({ client: seen.client, editor: seen.editor, groups: seen.groups, email: seen.email }, { client: 'editor', editor: { user: 'harness', groupsOverridden: true }, groups: undefined, email: undefined });
    const [audit] = await nodeRed.waitForMatches(/\{"event":"mcp\.tool_call"[^\n]*\}/, 1, since);
    assert.deepEqual(JSON.parse(audit![0]).editor, { user: 'harness', groupsOverridden: true });
  });

  it('needs the editor permission: 403 for a user without it, list-only for a read-only user', async () => {
    const since = nodeRed.output().length;
    const noList = await admin('endpoints', TOKENS.read);
    assert.deepEqual([noList.status, noList.body.error], [403, 'permission_denied']);
    assert.equal(noList.body.message, 'Your Node-RED user lacks the permission mcp-flow-server.read needed for this.');
    assert.equal((await tryIt(LOCAL_SERVER, { tool: 'echo', arguments: { text: 'x' } }, TOKENS.read)).status, 403);
    assert.equal((await admin('endpoints', TOKENS.viewer)).status, 200);
    const viewerTry = await tryIt(LOCAL_SERVER, { tool: 'echo', arguments: { text: 'x' } }, TOKENS.viewer);
    assert.deepEqual([viewerTry.status, viewerTry.body.error], [403, 'permission_denied']);
    assert.equal(nodeRed.output().slice(since).includes('echo ran for'), false, 'the flow was not invoked');
    const anonymous = await fetch(`${nodeRed.adminUrl}/mcp-sidebar/endpoints`);
    assert.equal(anonymous.status, 401);
  });

  it("guards an endpoint's tool list and the tool node's schema check like the rest: refused without the permission", async () => {
    const tools = `endpoints/${LOCAL_SERVER}/tools`;
    assert.deepEqual([(await admin(tools, TOKENS.read)).status, (await admin(tools, TOKENS.read)).body.error], [403, 'permission_denied']);
    assert.equal((await admin(tools, TOKENS.viewer)).status, 200, 'reading the tool list is a read permission');
    const validate = (token: string) =>
      fetch(`${nodeRed.adminUrl}/mcp-tool-registry/validate-schema`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ schema: '{"type":"object"}', kind: 'input' }),
      });
    // Node-RED's own permission check, which answers a missing permission with 401.
    assert.equal((await validate(TOKENS.read)).status, 401);
    assert.equal((await validate(TOKENS.viewer)).status, 401, 'checking a schema is part of editing a tool: a write permission');
    assert.equal((await validate(TOKENS.write)).status, 200);
    assert.equal((await fetch(`${nodeRed.adminUrl}/mcp-tool-registry/validate-schema`, { method: 'POST' })).status, 401);
  });

  it('shows an endpoint that failed, with its last error, and refuses Try it there', async () => {
    const flows = await nodeRed.getFlows();
    const clash = { ...flows.find((node) => node.id === LOCAL_SERVER)!, id: 'sb-clash', serverName: 'clash', wires: [[]] };
    const since = nodeRed.output().length;
    await nodeRed.deploy([...flows, clash]);
    // The endpoint logs its failure when it reports it; the list reads the same state.
    await nodeRed.waitForOutput(/path \/mcp is already served on port/, since);
    const listed = (await endpoints()).find((e) => e.id === 'sb-clash');
    assert.equal(listed.state, 'failed');
    assert.match(listed.lastError.message, /path \/mcp is already served on port/);
    assert.equal(typeof listed.lastError.at, 'number');
    const refused = await tryIt('sb-clash', { tool: 'echo', arguments: { text: 'x' } });
    assert.deepEqual([refused.status, refused.body.error], [409, 'try_not_serving']);
    await nodeRed.deploy(flows);
    assert.equal((await endpoints()).some((e) => e.id === 'sb-clash'), false, 'a removed endpoint leaves the list');
  });

  it('answers 404 for an endpoint that is not deployed', async () => {
    const { status, body } = await tryIt('no-such-node', { tool: 'echo', arguments: {} });
    assert.deepEqual([status, body.error], [404, 'try_unknown_endpoint']);
  });
});
