import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createLocalAccess } from '../../lib/access/local-access.js';
import { silentLogger } from '../../lib/core/logger.js';
import type { ExecutionRequest } from '../../lib/execution/broker.js';
import type { CallFinished, ExecutionContext } from '../../lib/mcp/calls/call-types.js';
import { McpEndpoint } from '../../lib/mcp/endpoint/mcp-endpoint.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';

// McpEndpoint.callFromEditor: the sidebar's Try-it call through the endpoint's own SDK server,
// argument check, broker and result checks, with a "flow" that answers at once.
describe('McpEndpoint.callFromEditor', () => {
  const executed: Array<{ request: ExecutionRequest; context: ExecutionContext }> = [];
  const finished: CallFinished[] = [];
  const endpoint: McpEndpoint = new McpEndpoint({
    serverName: 'editor-call-test',
    path: '/mcp',
    access: createLocalAccess(),
    maxInFlight: 4,
    logger: silentLogger,
    onCallFinished: (event) => finished.push(event),
    execute: (request, context) => {
      executed.push({ request, context });
      setImmediate(() => endpoint.settle(request.executionId, { result: { sum: Number(request.arguments['a']) + 1 } }));
    },
  });
  endpoint.setCatalog(
    new ToolCatalog([
      parseToolConfig({
        toolName: 'inc',
        endpoint: '/mcp',
        inputSchema: '{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}',
        outputSchema: '{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}',
      }),
    ]),
  );
  after(() => endpoint.stop('test over'));
  const caller = { client: 'editor', editor: { user: 'ada' } };

  it('runs the flow with the editor caller and reports the call like any other', async () => {
    const answer = await endpoint.callFromEditor('inc', { a: 41 }, caller, new AbortController().signal);
    assert.ok('result' in answer);
    // Exactly what a 2026-07-28 client receives, envelope fields (resultType, _meta) included.
    assert.deepEqual([answer.result.content, answer.result.structuredContent, answer.result.isError], [[{ type: 'text', text: '{"sum":42}' }], { sum: 42 }, undefined]);
    const { context } = executed.at(-1)!;
    assert.deepEqual(
      { client: context.client, editor: context.editor, endpoint: context.endpoint, tool: context.tool, protocolVersion: context.protocolVersion },
      { client: 'editor', editor: { user: 'ada' }, endpoint: '/mcp', tool: 'inc', protocolVersion: '2026-07-28' },
    );
    assert.deepEqual([finished.at(-1)!.outcome, finished.at(-1)!.caller], ['success', caller]);
  });

  it('refuses arguments against the schema without running the flow', async () => {
    const before = executed.length;
    const answer = await endpoint.callFromEditor('inc', { a: 'x' }, caller, new AbortController().signal);
    assert.ok('result' in answer && answer.result.isError === true);
    assert.equal(executed.length, before);
    assert.equal(finished.at(-1)!.outcome, 'invalid_arguments');
  });

  it('answers an unknown tool with the JSON-RPC error a client would get', async () => {
    const answer = await endpoint.callFromEditor('nope', {}, caller, new AbortController().signal);
    assert.ok('error' in answer);
    assert.equal(answer.error.code, -32602);
  });
});
