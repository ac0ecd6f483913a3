// examples/confirm-before-acting.json deployed as a user imports it (only its runtime port moved),
// driven by the official MCP client acting as the user: its elicitation handler is the form the user
// fills in. On 2026-07-28 the client fulfils the input_required result and retries the call itself;
// on 2025-11-25 the question arrives on the call's event stream and the answer goes back in a POST.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { exampleFlow } from '../support/flows.js';
import { JSON_HEADERS, rawRequest, waitForEndpoint, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

type Reply = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | boolean> };
type Asked = { message: string; requestedSchema: { properties: Record<string, { type: string; enum?: string[]; default?: unknown }> } };

/** A client of `era` whose user answers every form with `reply`; without a reply it cannot show forms. */
async function userClient(url: string, era: Era, reply?: Reply): Promise<{ client: Client; asked: Asked[] }> {
  const asked: Asked[] = [];
  const client = new Client(
    { name: 'garage-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : 'auto' }, capabilities: reply ? { elicitation: { form: {} } } : {} },
  );
  if (reply) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params as unknown as Asked);
      return reply;
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  // Each era takes its own path through the palette: make sure the client is speaking the one named.
  assert.equal(client.getNegotiatedProtocolVersion(), era === 'modern' ? '2026-07-28' : '2025-11-25');
  return { client, asked };
}

function textOf(result: { content: unknown }): string {
  return (result.content as Array<{ text: string }>)[0]!.text;
}

describe(`the confirm-before-acting example flow on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;

  before(async () => {
    const port = await freePort();
    // Beside the example, a metrics node whose downstream logs each call's status and rounds.
    const example = exampleFlow(port, 'confirm-before-acting.json');
    const tab = example.find((node) => node.type === 'tab')!.id as string;
    const runtime = example.find((node) => node.type === 'mcp-runtime')!.id as string;
    nodeRed = await startNodeRed([
      ...example,
      { id: 'garage-metrics', type: 'mcp-server-metrics', z: tab, name: '', runtime, x: 160, y: 320, wires: [['garage-telemetry']] },
      {
        id: 'garage-telemetry', type: 'function', z: tab, name: '', outputs: 1, noerr: 0, x: 400, y: 320, wires: [[]],
        func: "node.warn(`telemetry: ${msg.payload.tool} ${msg.payload.client} ${msg.payload.status} rounds=${msg.payload.inputRounds}`);\nreturn null;",
      },
    ]);
    url = `http://127.0.0.1:${port}/garage`;
    await waitForEndpoint(url);
  });
  after(() => nodeRed?.stop());

  // First, while no other call's telemetry can still be on its way to the log.
  it('telemetry counts the rounds: a 2026-07-28 call is answered with its questions, then finished by the retry', async () => {
    const since = nodeRed.output().length;
    const { client } = await userClient(url, 'modern', { action: 'accept', content: { when: 'now', confirm: true } });
    try {
      assert.equal(textOf(await client.callTool({ name: 'open_garage_door', arguments: {} })), 'Door opening');
    } finally {
      await client.close();
    }
    const seen = await nodeRed.waitForMatches(/telemetry: open_garage_door \S+ (\w+) rounds=(\d+)/, 2, since);
    assert.deepEqual(seen.map((match) => `${match[1]} ${match[2]}`), ['input_required 1', 'success 1']);
  });

  it('telemetry counts the rounds: a 2025-11-25 call asks on its stream and is one call', async () => {
    const since = nodeRed.output().length;
    const { client } = await userClient(url, 'legacy', { action: 'decline' });
    try {
      assert.equal(textOf(await client.callTool({ name: 'open_garage_door', arguments: {} })), 'Left closed');
    } finally {
      await client.close();
    }
    const [seen] = await nodeRed.waitForMatches(/telemetry: open_garage_door \S+ (\w+) rounds=(\d+)/, 1, since);
    assert.deepEqual([seen![1], seen![2]], ['success', '1']);
  });

  const cases: Array<{ name: string; reply: Reply; answer: string }> = [
    { name: 'accept with the box ticked opens the door', reply: { action: 'accept', content: { when: 'now', confirm: true } }, answer: 'Door opening' },
    { name: 'accept for later says when', reply: { action: 'accept', content: { when: 'in 5 minutes', confirm: true } }, answer: 'Door opening in 5 minutes' },
    { name: 'accept without the box ticked leaves it closed', reply: { action: 'accept', content: { when: 'now', confirm: false } }, answer: 'Left closed' },
    { name: 'decline leaves it closed', reply: { action: 'decline' }, answer: 'Left closed' },
    { name: 'cancel leaves it closed', reply: { action: 'cancel' }, answer: 'Left closed' },
  ];

  for (const era of ['modern', 'legacy'] as Era[]) {
    for (const { name, reply, answer } of cases) {
      it(`${era}: ${name}`, async () => {
        const { client, asked } = await userClient(url, era, reply);
        try {
          const result = await client.callTool({ name: 'open_garage_door', arguments: {} });
          assert.equal(result.isError ?? false, false, JSON.stringify(result));
          assert.equal(textOf(result), answer);
          // The user saw the example's one question, with its two fields and their defaults.
          assert.equal(asked.length, 1);
          assert.equal(asked[0]!.message, 'Open the garage door now?');
          const { when, confirm } = asked[0]!.requestedSchema.properties;
          assert.deepEqual([when?.enum, when?.default, confirm?.type, confirm?.default], [['now', 'in 5 minutes'], 'now', 'boolean', false]);
        } finally {
          await client.close();
        }
      });
    }
  }

  it('modern: a yes the client sends unasked, before the user saw any question, does not open the door; the user is asked', async () => {
    const yes = { door: { action: 'accept', content: { when: 'now', confirm: true } } };
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'eager-client', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    };
    const response = await rawRequest(url, {
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'open_garage_door' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'open_garage_door', arguments: {}, inputResponses: yes, _meta } }),
    });
    const result = response.json().result;
    assert.equal(result?.resultType, 'input_required', response.body);
    assert.equal(result.inputRequests.door.params.message, 'Open the garage door now?');
  });

  it('modern: a client that cannot show forms gets a tool error, and the door stays shut', async () => {
    const { client } = await userClient(url, 'modern');
    try {
      const result = await client.callTool({ name: 'open_garage_door', arguments: {} });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /Not opened: this client cannot ask the user to confirm \(.*elicitation.*\)/);
    } finally {
      await client.close();
    }
  });

  it('legacy: a client that cannot show forms answers the question with an error; the flow says so', async () => {
    const { client } = await userClient(url, 'legacy');
    try {
      const result = await client.callTool({ name: 'open_garage_door', arguments: {} });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /Not opened: the client could not ask the user \(.+\)/);
    } finally {
      await client.close();
    }
  });
});
