import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Server, WebStandardStreamableHTTPServerTransport, type RequestId } from '@modelcontextprotocol/server';
import { LegacyExchangeHub } from '../../lib/mcp/legacy-exchange-hub.js';

// The hub between the official SDK's real per-request transport and one real shared SDK Server:
// nothing here is a stand-in except the tool itself, which waits until the test releases it.

interface HeldCall {
  readonly label: string;
  readonly hubId: RequestId;
  readonly signal: AbortSignal;
  release(text: string): void;
}

function sharedServer() {
  const hub = new LegacyExchangeHub();
  const held: HeldCall[] = [];
  const arrived: Array<() => void> = [];
  const server = new Server({ name: 'hub-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'hold', inputSchema: { type: 'object' } }] }));
  server.setRequestHandler(
    'tools/call',
    (request, ctx) =>
      new Promise((resolve) => {
        held.push({
          label: String(request.params.arguments?.['label']),
          hubId: ctx.mcpReq.id,
          signal: ctx.mcpReq.signal,
          release: (text) => resolve({ content: [{ type: 'text', text }] }),
        });
        arrived.shift()?.();
      }),
  );
  void server.connect(hub);
  /** Resolves once `count` calls wait in the tool. */
  const waitForHeld = async (count: number) => {
    while (held.length < count) await new Promise<void>((resolve) => arrived.push(resolve));
  };
  return { hub, server, held, waitForHeld };
}

/** One stateless 2025-era POST through a fresh SDK transport attached to the hub. */
function post(hub: LegacyExchangeHub, body: unknown, protocolVersion = '2025-06-18'): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  hub.attach(transport);
  const request = new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': protocolVersion },
  });
  return transport.handleRequest(request, { parsedBody: body });
}

const callBody = (id: RequestId, label: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hold', arguments: { label } } });

describe('LegacyExchangeHub', () => {
  it('keeps two clients that use the same request id apart and answers each under its own id', async () => {
    const { hub, held, waitForHeld } = sharedServer();
    const first = post(hub, callBody(1, 'first'));
    const second = post(hub, callBody(1, 'second'));
    await waitForHeld(2);
    assert.notEqual(held[0]!.hubId, held[1]!.hubId, 'the shared server must see distinct ids');
    assert.equal(hub.clientRequestId(held[0]!.hubId), 1);
    assert.equal(hub.clientRequestId(held[1]!.hubId), 1);
    // Answer in the opposite order from arrival.
    held.find((call) => call.label === 'second')!.release('for second');
    held.find((call) => call.label === 'first')!.release('for first');
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual(await a.json(), { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'for first' }] } });
    assert.deepEqual(await b.json(), { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'for second' }] } });
    assert.equal(hub.openRequests, 0, 'answered requests leave no route behind');
  });

  it('answers every request of a batch, with string and number ids, in one JSON body', async () => {
    const { hub, held, waitForHeld } = sharedServer();
    // Batches are a 2025-03-26 feature; the endpoint refuses them for later revisions before the hub.
    const batch = post(hub, [callBody('a', 'one'), callBody(7, 'two'), { jsonrpc: '2.0', id: 'list', method: 'tools/list' }], '2025-03-26');
    await waitForHeld(2);
    for (const call of held) call.release(`done ${call.label}`);
    const answers = (await (await batch).json()) as Array<{ id: RequestId; result: unknown }>;
    const byId = new Map(answers.map((answer) => [answer.id, answer.result]));
    assert.deepEqual(byId.get('a'), { content: [{ type: 'text', text: 'done one' }] });
    assert.deepEqual(byId.get(7), { content: [{ type: 'text', text: 'done two' }] });
    assert.deepEqual(byId.get('list'), { tools: [{ name: 'hold', inputSchema: { type: 'object' } }] });
  });

  it('ignores a cancellation naming a client id, which could otherwise hit another client\'s request', async () => {
    const { hub, held, waitForHeld } = sharedServer();
    const pending = post(hub, callBody(5, 'kept'));
    await waitForHeld(1);
    // Whatever number the hub gave the held call, a client cancelling "its" request must not reach it.
    const hubId = held[0]!.hubId;
    const cancel = await post(hub, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: hubId, reason: 'not yours' } });
    assert.equal(cancel.status, 202);
    assert.equal(held[0]!.signal.aborted, false);
    held[0]!.release('still answered');
    assert.deepEqual(await (await pending).json(), { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'still answered' }] } });
  });

  it('answers what is still open with a retryable error when the shared server closes', async () => {
    const { hub, server, waitForHeld } = sharedServer();
    const pending = post(hub, callBody('x', 'left'));
    await waitForHeld(1);
    await server.close();
    const response = await pending;
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      jsonrpc: '2.0',
      id: 'x',
      error: { code: -32000, message: 'The MCP endpoint stopped before answering; retry the request.' },
    });
    assert.equal(hub.openRequests, 0);
  });

  it('answers a request that arrives after the close with the same error instead of leaving it hanging', async () => {
    const { hub, server } = sharedServer();
    await server.close();
    const response = await post(hub, callBody(9, 'too late'));
    assert.deepEqual(await response.json(), {
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32000, message: 'The MCP endpoint stopped before answering; retry the request.' },
    });
  });

  it('reports no client id for numbers it never handed out', () => {
    const hub = new LegacyExchangeHub();
    assert.equal(hub.clientRequestId(1), undefined);
    assert.equal(hub.clientRequestId('1'), undefined);
  });
});
