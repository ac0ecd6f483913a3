import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { flowServer, runtime, tab, tool } from '../support/flows.js';
import { connect, waitForEndpoint } from '../support/mcp-http.js';
import { generateLargeFlow } from '../support/flow-fixtures.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

const TOKENS = { write: 'harness-write-token-5f0c2a9e', read: 'reader-token-flows-read-only-77b1' };
const SECRETS = {
  tabEnv: 'rt-planted-tab-env-19ab',
  subflowEnv: 'rt-planted-subflow-env-2c4d',
  brokerPassword: 'rt-planted-broker-password-3e5f',
  urlPassword: 'rt-planted-url-password-4a6b',
  schemaDefault: 'rt-planted-schema-default-5c7d',
  wsAuthorization: 'rt-planted-ws-authorization-6d8e',
  wsQueryToken: 'rt-planted-ws-query-token-7e9f',
  httpApiKey: 'rt-planted-http-api-key-8fa0',
  injectPassword: 'rt-planted-inject-password-90b1',
  switchCompared: 'rt-planted-switch-compared-a1c2',
  changeToken: 'rt-planted-change-token-b2d3',
};

/** Core node types only (a real Node-RED must be able to start them), with secrets planted around. */
function inspectedFlows(port: number, adminPort: number): FlowNode[] {
  return [
    { ...tab('tab-main'), label: 'Main', env: [{ name: 'API_KEY', value: SECRETS.tabEnv, type: 'str' }] },
    { ...tab('tab-other'), label: 'Other' },
    { id: 'grp', type: 'group', z: 'tab-main', name: 'Ingest', nodes: ['inj', 'fn'], x: 10, y: 10, w: 400, h: 100 },
    { id: 'inj', type: 'inject', z: 'tab-main', g: 'grp', name: 'tick', props: [{ p: 'payload' }], repeat: '', once: false, topic: '', payload: '', payloadType: 'date', x: 100, y: 40, wires: [['fn']] },
    { id: 'fn', type: 'function', z: 'tab-main', g: 'grp', name: 'shape', func: 'msg.payload = { at: msg.payload };\nreturn msg;', outputs: 1, x: 250, y: 40, wires: [['req']] },
    { id: 'req', type: 'http request', z: 'tab-main', name: 'call', method: 'GET', ret: 'txt', url: `https://bob:${SECRETS.urlPassword}@api.example.test/x`, x: 400, y: 40, wires: [['lout']] },
    { id: 'lout', type: 'link out', z: 'tab-main', name: 'to other', mode: 'link', links: ['lin'], x: 550, y: 40, wires: [] },
    { id: 'lin', type: 'link in', z: 'tab-other', name: 'from main', links: ['lout'], x: 100, y: 40, wires: [['sfi']] },
    { id: 'sf', type: 'subflow', name: 'Enrich', info: '', in: [{ x: 40, y: 40, wires: [{ id: 'sf-fn' }] }], out: [{ x: 300, y: 40, wires: [{ id: 'sf-fn', port: 0 }] }], env: [{ name: 'TOKEN', type: 'str', value: SECRETS.subflowEnv }] },
    { id: 'sf-fn', type: 'function', z: 'sf', name: 'enrich', func: 'return msg;', outputs: 1, x: 150, y: 40, wires: [[]] },
    { id: 'sfi', type: 'subflow:sf', z: 'tab-other', name: '', x: 250, y: 40, wires: [[]] },
    { id: 'broker', type: 'mqtt-broker', name: 'plant broker', broker: '127.0.0.1', port: '1', clientid: '', autoConnect: false, usetls: false, protocolVersion: '4', keepalive: '60', cleansession: true, credentials: { user: 'plant', password: SECRETS.brokerPassword } },
    // Secrets that only their meaning gives away: header values, what is set on or compared with a
    // secret-named message property. The http request and change nodes have no position, so the
    // flow API lists them with the tab's config entries and config mode shows all their settings.
    {
      id: 'ws',
      type: 'websocket-client',
      path: `ws://127.0.0.1:1/feed?token=${SECRETS.wsQueryToken}`,
      tls: '',
      wholemsg: 'false',
      hb: '0',
      subprotocol: '',
      headers: [{ keyType: 'Authorization', keyValue: '', valueType: 'other', valueValue: `Bearer ${SECRETS.wsAuthorization}` }],
    },
    { id: 'inj-secret', type: 'inject', z: 'tab-other', name: 'sign in', props: [{ p: 'password', v: SECRETS.injectPassword, vt: 'str' }], repeat: '', crontab: '', once: false, onceDelay: 0.1, topic: '', x: 100, y: 120, wires: [['sw-secret']] },
    { id: 'sw-secret', type: 'switch', z: 'tab-other', name: 'check', property: 'password', propertyType: 'msg', rules: [{ t: 'eq', v: SECRETS.switchCompared, vt: 'str' }], checkall: 'true', repair: false, outputs: 1, x: 250, y: 120, wires: [[]] },
    { id: 'req-hdr', type: 'http request', z: 'tab-other', name: 'with key', method: 'GET', ret: 'txt', paytoqs: 'ignore', url: 'https://api.example.test/x', tls: '', persist: false, proxy: '', insecureHTTPParser: false, authType: '', senderr: false, headers: [{ keyType: 'other', keyValue: 'X-Api-Key', valueType: 'other', valueValue: SECRETS.httpApiKey }] },
    { id: 'chg-secret', type: 'change', z: 'tab-other', name: 'set token', rules: [{ t: 'set', p: 'apiToken', pt: 'msg', to: SECRETS.changeToken, tot: 'str' }] },
    { ...runtime('rt', port), adminPort: String(adminPort), adminPath: '/admin' },
    flowServer('fs-admin', { runtime: 'rt', path: '/admin', z: 'tab-main' }),
    tool('t-dummy', { name: 'dummy', endpoint: '/admin', z: 'tab-main', input: { type: 'object', properties: { password: { type: 'string', default: SECRETS.schemaDefault } } } }),
  ];
}

describe(`get_flow against a real Node-RED with adminAuth and a read-only token on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;
  const responses: string[] = [];

  const getFlow = async (args: Record<string, unknown>) => {
    const client = await connect(url, 'modern');
    try {
      const result = await client.callTool({ name: 'get_flow', arguments: args });
      responses.push(JSON.stringify(result));
      return result as { isError?: boolean; structuredContent?: any; content: Array<{ text: string }> };
    } finally {
      await client.close();
    }
  };

  before(async () => {
    const port = await freePort();
    const adminPort = await freePort();
    nodeRed = await startNodeRed([...inspectedFlows(port, adminPort), ...generateLargeFlow({ tabId: 'tab-large', nodes: 20_001 })], {
      uiPort: adminPort,
      adminTokens: TOKENS,
      env: { NODE_RED_ADMIN_API_TOKEN: TOKENS.read },
    });
    url = `http://127.0.0.1:${port}/admin`;
    await waitForEndpoint(url);
  });
  after(() => nodeRed?.stop());

  it('is offered only on the admin endpoint, read-only, with an output schema', async () => {
    const client = await connect(url, 'legacy');
    try {
      const { tools } = await client.listTools();
      const getFlowTool = tools.find((t) => t.name === 'get_flow');
      assert.ok(getFlowTool, 'get_flow listed');
      assert.equal(getFlowTool.annotations?.readOnlyHint, true);
      assert.equal(getFlowTool.outputSchema?.type, 'object');
    } finally {
      await client.close();
    }
  });

  it('lists tabs from the in-memory index and reuses it until the next deploy', async () => {
    const first = await getFlow({});
    assert.equal(first.isError ?? false, false, first.content[0]?.text);
    const ids = JSON.stringify(first.structuredContent);
    for (const id of ['tab-main', 'tab-other', 'tab-large']) assert.ok(ids.includes(id), id);
    assert.deepEqual(JSON.parse(first.content[0]!.text), first.structuredContent);
    const second = await getFlow({ mode: 'tabs' });
    assert.equal(second.structuredContent.meta.cached, true);
  });

  it('answers every mode against the real admin API', async () => {
    const calls: Array<Record<string, unknown>> = [
      { mode: 'tab_summary', id: 'tab-main' },
      { mode: 'group', id: 'tab-main', groupId: 'grp' },
      { mode: 'chain', id: 'tab-main', nodeId: 'fn' },
      { mode: 'node', id: 'tab-main', nodeId: 'fn', includeCode: true },
      { mode: 'node', id: 'tab-main', nodeId: 'inj', includeConfig: true },
      { mode: 'subflows' },
      { mode: 'subflow', subflowId: 'sf' },
      { mode: 'subflow', subflowId: 'sf', id: 'tab-other' },
      { mode: 'configs' },
      { mode: 'config', configId: 'broker' },
      { mode: 'node_configs', nodeId: 'fs-admin', id: 'tab-main' },
    ];
    for (const args of calls) {
      const result = await getFlow(args);
      assert.equal(result.isError ?? false, false, `${JSON.stringify(args)}: ${result.content[0]?.text}`);
      assert.ok(result.structuredContent, JSON.stringify(args));
    }
    const chain = JSON.stringify((await getFlow({ mode: 'chain', id: 'tab-main', nodeId: 'fn' })).structuredContent);
    for (const id of ['inj', 'fn', 'req', 'lout']) assert.ok(chain.includes(`"${id}"`), `chain has ${id}`);
    const code = JSON.stringify((await getFlow({ mode: 'node', id: 'tab-main', nodeId: 'fn', includeCode: true })).structuredContent);
    assert.ok(code.includes('msg.payload = { at: msg.payload }'));
  });

  it('stops inspecting a tab past 20 000 nodes, pages long chains, and says so', async () => {
    const summary = await getFlow({ mode: 'tab_summary', id: 'tab-large' });
    assert.equal(summary.isError ?? false, false, summary.content[0]?.text);
    assert.equal(summary.structuredContent.meta.truncated, true);
    // The one node past the cap is the end of the tab's only chain, so that chain is not whole.
    assert.equal(summary.structuredContent.counts.omittedNodes, 1);
    assert.deepEqual(
      summary.structuredContent.chains.map((chain: { complete: boolean; omittedWires: number }) => [chain.complete, chain.omittedWires]),
      [[false, 1]],
    );
    assert.ok(JSON.stringify(summary).length < 256 * 1024, 'response stays small');
    const chain = await getFlow({ mode: 'chain', id: 'tab-large', nodeId: 'big-0' });
    assert.equal(chain.isError ?? false, false, chain.content[0]?.text);
    const meta = chain.structuredContent.meta;
    assert.ok(meta.truncated === true || typeof meta.nextOffset === 'number', JSON.stringify(meta));
    assert.ok(JSON.stringify(chain).length < 256 * 1024, 'response stays small');
  });

  it('redacts header values and what is set on or compared with secret-named properties, by meaning', async () => {
    const ws = (await getFlow({ mode: 'config', configId: 'ws' })).structuredContent;
    assert.equal(ws.properties.path, 'ws://127.0.0.1:1/feed?token=[REDACTED]');
    assert.equal(ws.properties.headers[0].valueValue, '[REDACTED]');
    const request = (await getFlow({ mode: 'config', id: 'tab-other', configId: 'req-hdr' })).structuredContent;
    assert.deepEqual(request.properties.headers, [{ keyType: 'other', keyValue: 'X-Api-Key', valueType: 'other', valueValue: '[REDACTED]' }]);
    const change = (await getFlow({ mode: 'config', id: 'tab-other', configId: 'chg-secret' })).structuredContent;
    assert.equal(change.properties.rules[0].to, '[REDACTED]');
    const inject = (await getFlow({ mode: 'node', id: 'tab-other', nodeId: 'inj-secret', includeConfig: true })).structuredContent;
    assert.deepEqual(inject.config.props, [{ p: 'password', v: '[REDACTED]', vt: 'str' }]);
    const compare = (await getFlow({ mode: 'node', id: 'tab-other', nodeId: 'sw-secret', includeConfig: true })).structuredContent;
    assert.deepEqual(compare.config.rules, [{ t: 'eq', v: '[REDACTED]', vt: 'str' }]);
  });

  it('refuses unknown ids and mode mixes with a clear tool error', async () => {
    const missing = await getFlow({ mode: 'tab_summary', id: 'no-such-tab' });
    assert.equal(missing.isError, true);
    const mixed = await getFlow({ mode: 'tabs', nodeId: 'fn' });
    assert.equal(mixed.isError, true);
  });

  it('never returns a credential, a secret-named value, URL user info or an env value', () => {
    assert.ok(responses.length >= 15);
    const everything = responses.join('\n');
    for (const [name, secret] of Object.entries({ ...SECRETS, token: TOKENS.read, writeToken: TOKENS.write })) {
      assert.ok(!everything.includes(secret), `${name} leaked`);
    }
    assert.ok(everything.includes('[REDACTED]'), 'redactions are marked');
  });
});
