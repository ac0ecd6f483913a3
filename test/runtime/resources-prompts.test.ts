import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ResourceNotFoundError } from '@modelcontextprotocol/client';
import { answer, flowServer, plantStatusFlow, prompt, resource, runtime, tab, tool } from '../support/flows.js';
import { connect, postJsonRpc, protocolError, waitForEndpoint, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

const FAULTS = 'tab-content-faults';

/** A second endpoint whose resources and prompts misbehave, next to the shipped example. */
function faultFlows(port: number): FlowNode[] {
  const route = {
    id: 'route',
    type: 'switch',
    z: FAULTS,
    name: 'route',
    property: 'payload.uri',
    propertyType: 'msg',
    rules: [
      { t: 'eq', v: 'slow://never', vt: 'str' },
      { t: 'eq', v: 'err://boom', vt: 'str' },
      { t: 'regex', v: '^files://', vt: 'str', case: false },
      { t: 'null' },
    ],
    checkall: 'false',
    repair: false,
    outputs: 4,
    x: 200,
    y: 100,
    wires: [['never'], ['boom'], ['binary'], ['prompt-fn']],
  };
  return [
    tab(FAULTS),
    runtime('rt-faults', port),
    flowServer('fs-faults', { runtime: 'rt-faults', path: '/content', wires: ['route'], z: FAULTS }),
    route,
    answer('never', 'return null;', 'fs-faults', FAULTS),
    answer('boom', `return { topic: 'mcp-resource-response', payload: { executionId: msg.payload.executionId, error: 'the sensor bus is down' } };`, 'fs-faults', FAULTS),
    answer(
      'binary',
      // Every read the flow sees is logged, so a test can tell that a refused one never got here.
      `node.warn('files read: ' + JSON.stringify(msg.payload.variables));\nreturn { topic: 'mcp-resource-response', payload: { executionId: msg.payload.executionId, contents: [{ blob: Buffer.from([0, 1, 2, 255]), mimeType: 'application/octet-stream' }] } };`,
      'fs-faults',
      FAULTS,
    ),
    answer(
      'prompt-fn',
      `const { name, arguments: args, executionId } = msg.payload;\nreturn { topic: 'mcp-prompt-response', payload: { executionId, messages: [{ role: 'user', content: name + ' for ' + args.who + ' via ' + msg.mcp.prompt }] } };`,
      'fs-faults',
      FAULTS,
    ),
    resource('r-never', { uri: 'slow://never', endpoint: '/content', timeout: 1, z: FAULTS }),
    resource('r-boom', { uri: 'err://boom', endpoint: '/content', z: FAULTS }),
    resource('r-files', { uri: 'files://{name}', endpoint: '/content', z: FAULTS }),
    resource('r-bad', { uri: 'bad://{+path}', endpoint: '/content', z: FAULTS }),
    prompt('p-flow', { name: 'flow_prompt', endpoint: '/content', source: 'flow', arguments: [{ name: 'who', required: true }], z: FAULTS }),
    tool('t-content', { name: 'still_here', endpoint: '/content', z: FAULTS }),
    flowServer('fs-tools', { runtime: 'rt-faults', path: '/tools-only', z: FAULTS }),
    tool('t-only', { name: 'only_tool', endpoint: '/tools-only', z: FAULTS }),
  ];
}

describe(`resources, templates, prompts and completions on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let plant: string;
  let content: string;

  before(async () => {
    const plantPort = await freePort();
    const contentPort = await freePort();
    nodeRed = await startNodeRed([...plantStatusFlow(plantPort), ...faultFlows(contentPort)]);
    plant = `http://127.0.0.1:${plantPort}/plant`;
    content = `http://127.0.0.1:${contentPort}/content`;
    await Promise.all([waitForEndpoint(plant), waitForEndpoint(content)]);
  });
  after(() => nodeRed?.stop());

  for (const era of ['legacy', 'modern'] as Era[]) {
    describe(`the plant-status example with the official MCP client, ${era} era`, () => {
      it('declares resources, prompts and completions and lists each kind', async () => {
        const client = await connect(plant, era);
        try {
          const capabilities = client.getServerCapabilities();
          assert.ok(capabilities?.resources && capabilities.prompts && capabilities.completions, JSON.stringify(capabilities));
          const { resources } = await client.listResources();
          assert.deepEqual(resources.map((r) => r.uri), ['plant://handbook/safety', 'plant://line-1/status']);
          assert.equal(resources[1]!.mimeType, 'application/json');
          assert.equal(resources[1]!.title, 'Line 1 status');
          const { resourceTemplates } = await client.listResourceTemplates();
          assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate), ['sensors://{line}/readings']);
          const { prompts } = await client.listPrompts();
          assert.equal(prompts.length, 1);
          assert.equal(prompts[0]!.name, 'maintenance_report');
          assert.deepEqual(prompts[0]!.arguments?.map((a) => [a.name, a.required]), [['machine', true], ['period', false]]);
        } finally {
          await client.close();
        }
      });

      it('reads a flow-answered resource, a template with its variable, and static text', async () => {
        const client = await connect(plant, era);
        try {
          const status = await client.readResource({ uri: 'plant://line-1/status' });
          assert.equal(status.contents[0]!.uri, 'plant://line-1/status');
          assert.equal(status.contents[0]!.mimeType, 'application/json');
          assert.equal(JSON.parse((status.contents[0] as { text: string }).text).state, 'running');
          const readings = await client.readResource({ uri: 'sensors://line-2/readings' });
          assert.equal(readings.contents[0]!.mimeType, 'text/csv');
          assert.match((readings.contents[0] as { text: string }).text, /^# readings of line-2\ntime,temperature/);
          const rules = await client.readResource({ uri: 'plant://handbook/safety' });
          assert.match((rules.contents[0] as { text: string }).text, /^# Safety rules/);
        } finally {
          await client.close();
        }
      });

      it('renders the prompt template and refuses a missing argument or an unknown prompt with -32602', async () => {
        const client = await connect(plant, era);
        try {
          const result = await client.getPrompt({ name: 'maintenance_report', arguments: { machine: 'press-1', period: 'last week' } });
          assert.deepEqual(result.messages, [
            { role: 'user', content: { type: 'text', text: 'Draft a maintenance report for machine press-1 covering last week. Read plant://handbook/safety first and follow it.' } },
          ]);
          const missing = await protocolError(client.getPrompt({ name: 'maintenance_report', arguments: {} }));
          assert.equal(missing.code, -32602);
          assert.match(missing.message, /Missing required argument "machine"/);
          const unknown = await protocolError(client.getPrompt({ name: 'no_such_prompt' }));
          assert.equal(unknown.code, -32602);
          assert.match(unknown.message, /Unknown prompt "no_such_prompt"/);
        } finally {
          await client.close();
        }
      });

      it('completes the prompt argument from the flow and the template variable from the editor list', async () => {
        const client = await connect(plant, era);
        try {
          const machines = await client.complete({ ref: { type: 'ref/prompt', name: 'maintenance_report' }, argument: { name: 'machine', value: 'PR' } });
          assert.deepEqual(machines.completion, { values: ['press-1', 'press-2'], total: 2, hasMore: false });
          const lines = await client.complete({ ref: { type: 'ref/resource', uri: 'sensors://{line}/readings' }, argument: { name: 'line', value: '' } });
          assert.deepEqual(lines.completion.values, ['line-1', 'line-2', 'line-3']);
        } finally {
          await client.close();
        }
      });
    });
  }

  it('answers an unknown URI with -32002 on 2025 revisions and -32602 with data { uri } on 2026-07-28', async () => {
    const legacy = await connect(plant, 'legacy');
    const modern = await connect(plant, 'modern');
    try {
      // The SDK client turns either wire code into its ResourceNotFoundError; the raw check is below.
      const old = await protocolError(legacy.readResource({ uri: 'plant://nowhere' }));
      assert.ok(old instanceof ResourceNotFoundError);
      assert.deepEqual(old.data, { uri: 'plant://nowhere' });
      const current = await protocolError(modern.readResource({ uri: 'plant://nowhere' }));
      assert.equal(current.code, -32602);
      assert.deepEqual(current.data, { uri: 'plant://nowhere' });
    } finally {
      await Promise.all([legacy.close(), modern.close()]);
    }
    // The wire code itself, as a 2025-era client without the SDK sees it.
    const raw = await postJsonRpc(plant, { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'plant://nowhere' } });
    assert.deepEqual(raw.json().error, { code: -32002, message: 'Resource not found: plant://nowhere', data: { uri: 'plant://nowhere' } });
  });

  for (const era of ['legacy', 'modern'] as Era[]) {
    it(`refuses a template variable that decodes to more than one segment as not found; the flow never sees it (${era})`, async () => {
      const client = await connect(content, era);
      try {
        const since = nodeRed.output().length;
        for (const name of ['..%2F..%2Fetc%2Fpasswd', '%2e%2e', '..', 'a%5Cb', 'report%00.bin', 'line%0Abreak', '%1B%5B31m', 'bad%zz']) {
          const uri = `files://${name}`;
          const error = await protocolError(client.readResource({ uri }));
          // The same answer as a URI no resource has: the SDK client's ResourceNotFoundError, naming the URI.
          assert.ok(error instanceof ResourceNotFoundError, `${uri}: ${error.message}`);
          assert.deepEqual(error.data, { uri }, uri);
        }
        // A good read after them reaches the flow and is logged; none of the refused ones was.
        await client.readResource({ uri: 'files://report%20final.bin' });
        await nodeRed.waitForOutput('files read: {"name":"report final.bin"}', since);
        const seen = nodeRed.output().slice(since).match(/files read: .*/g) ?? [];
        assert.deepEqual(seen, ['files read: {"name":"report final.bin"}']);
      } finally {
        await client.close();
      }
    });
  }

  describe('misbehaving resources and prompts', () => {
    it('leaves an invalid template out with a clear error and keeps serving the rest', async () => {
      await nodeRed.waitForOutput(/\[mcp-resource:r-bad\][^\n]*URI bad:\/\/\{\+path\}: variable \{\+path\} uses an operator/);
      await nodeRed.waitForOutput(/\[mcp-flow-server:fs-faults\][^\n]*1 tool, 3 resources, 1 prompt on /);
      const client = await connect(content, 'modern');
      try {
        const { resources } = await client.listResources();
        assert.deepEqual(resources.map((r) => r.uri), ['err://boom', 'slow://never']);
        const { resourceTemplates } = await client.listResourceTemplates();
        assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate), ['files://{name}']);
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name), ['still_here']);
      } finally {
        await client.close();
      }
    });

    for (const era of ['legacy', 'modern'] as Era[]) {
      it(`ends a read the flow never answers at its time limit (${era})`, async () => {
        const client = await connect(content, era);
        try {
          const error = await protocolError(client.readResource({ uri: 'slow://never' }));
          assert.equal(error.code, -32603);
          assert.match(error.message, /Resource slow:\/\/never was not answered within 1 s/);
        } finally {
          await client.close();
        }
      });

      it(`passes a flow's error, binary contents and a flow-answered prompt through (${era})`, async () => {
        const client = await connect(content, era);
        try {
          const error = await protocolError(client.readResource({ uri: 'err://boom' }));
          assert.match(error.message, /Resource err:\/\/boom failed: the sensor bus is down/);
          const file = await client.readResource({ uri: 'files://report.bin' });
          assert.deepEqual(file.contents, [{ uri: 'files://report.bin', mimeType: 'application/octet-stream', blob: Buffer.from([0, 1, 2, 255]).toString('base64') }]);
          const result = await client.getPrompt({ name: 'flow_prompt', arguments: { who: 'Ada' } });
          assert.deepEqual(result.messages, [{ role: 'user', content: { type: 'text', text: 'flow_prompt for Ada via flow_prompt' } }]);
          const extra = await protocolError(client.getPrompt({ name: 'flow_prompt', arguments: { who: 'Ada', whom: 'Bob' } }));
          assert.equal(extra.code, -32602);
          assert.match(extra.message, /Unknown argument "whom"/);
          // A value that is not a string: -32602 naming it, not -32603 with a validator's dump.
          const typed = await protocolError(client.getPrompt({ name: 'flow_prompt', arguments: { who: 5 as unknown as string } }));
          assert.equal(typed.code, -32602);
          assert.equal(typed.message.replace(/^MCP error -32602: /, ''), 'Argument "who" for prompt "flow_prompt" must be a string.');
        } finally {
          await client.close();
        }
      });
    }
  });

  it('declares no resources, prompts or completions capability on an endpoint without them', async () => {
    const url = content.replace('/content', '/tools-only');
    for (const era of ['legacy', 'modern'] as Era[]) {
      const client = await connect(url, era);
      try {
        const capabilities = client.getServerCapabilities() ?? {};
        assert.ok(capabilities.tools, era);
        assert.equal(capabilities.resources, undefined, era);
        assert.equal(capabilities.prompts, undefined, era);
        assert.equal(capabilities.completions, undefined, era);
      } finally {
        await client.close();
      }
    }
    const raw = await postJsonRpc(url, { jsonrpc: '2.0', id: 4, method: 'resources/list', params: {} });
    assert.equal(raw.json().error.code, -32601);
  });
});
