import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import { parsePromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { parseResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { McpEndpoint } from '../../lib/mcp/endpoint/mcp-endpoint.js';
import { localEndpoint, modernMeta, serveEndpoint, type ServedEndpoint } from '../support/served-endpoint.js';

// Malformed prompts/get and resources/read params, on both eras, through a real McpEndpoint behind a
// node:http server: the client is told -32602 naming what is wrong, never -32603 with the
// validator's dump, and no flow is asked.

let endpoint: McpEndpoint;
let served: ServedEndpoint;
let port: number;
const flowCalls: string[] = [];

before(async () => {
  endpoint = localEndpoint({
    serverName: 'params-test',
    maxInFlight: 4,
    execute: () => undefined,
    executeContent: (executionId, call) => {
      flowCalls.push(call.kind);
      setImmediate(() => endpoint.settle(executionId, { result: [{ role: 'user', content: 'from the flow' }] }));
    },
  });
  endpoint.setContent(
    new ContentCatalog(
      [parseResourceConfig({ resourceName: 'r', uri: 'docs://{name}', endpoint: '/mcp', source: 'static', text: 'doc {{name}}' })],
      [
        parsePromptConfig({ promptName: 'greet', endpoint: '/mcp', arguments: [{ name: 'who', required: true }, { name: 'tone' }], messages: [{ role: 'user', text: 'Hello {{who}}' }] }),
        parsePromptConfig({ promptName: 'flowed', endpoint: '/mcp', source: 'flow', arguments: [{ name: 'who' }] }),
      ],
    ),
  );
  served = await serveEndpoint(endpoint);
  port = served.port;
});
after(() => served.close());

const MODERN_META = modernMeta();

function post(era: 'legacy' | 'modern', method: string, params: Record<string, unknown>, name?: string): Promise<any> {
  const modern = era === 'modern';
  const body = { jsonrpc: '2.0', id: 9, method, params: modern ? { ...params, _meta: MODERN_META } : params };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': modern ? '2026-07-28' : '2025-11-25',
    ...(modern ? { 'mcp-method': method, ...(name !== undefined ? { 'mcp-name': name } : {}) } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

for (const era of ['legacy', 'modern'] as const) {
  describe(`content request params, ${era} era`, () => {
    it('answers a non-string prompt argument with -32602 naming the argument', async () => {
      for (const value of [5, true, null, { text: 'x' }, ['a']]) {
        const answer = await post(era, 'prompts/get', { name: 'greet', arguments: { who: 'Ada', tone: value } }, 'greet');
        assert.deepEqual(answer.error, { code: -32602, message: 'Argument "tone" for prompt "greet" must be a string.' }, JSON.stringify(value));
      }
      const required = await post(era, 'prompts/get', { name: 'greet', arguments: { who: 7 } }, 'greet');
      assert.deepEqual(required.error, { code: -32602, message: 'Argument "who" for prompt "greet" must be a string.' });
    });

    it('never asks the flow of a flow-answered prompt with such an argument', async () => {
      const before = flowCalls.length;
      const answer = await post(era, 'prompts/get', { name: 'flowed', arguments: { who: 42 } }, 'flowed');
      assert.deepEqual(answer.error, { code: -32602, message: 'Argument "who" for prompt "flowed" must be a string.' });
      assert.equal(flowCalls.length, before);
      const good = await post(era, 'prompts/get', { name: 'flowed', arguments: { who: 'Ada' } }, 'flowed');
      assert.equal(good.result.messages[0].content.text, 'from the flow');
    });

    it('answers arguments that are not an object, or a missing name, with a short -32602', async () => {
      const list = await post(era, 'prompts/get', { name: 'greet', arguments: ['Ada'] }, 'greet');
      assert.equal(list.error.code, -32602);
      assert.equal(list.error.message, 'Invalid params for prompts/get: arguments: must be an object whose values are strings');
      const nameless = await post(era, 'prompts/get', { arguments: {} });
      assert.equal(nameless.error.code, -32602);
      assert.equal(nameless.error.message, 'Invalid params for prompts/get: name: must be the name of a prompt (a string)');
    });

    it('answers a resources/read without a string URI with a short -32602', async () => {
      const answer = await post(era, 'resources/read', { uri: 5 });
      assert.equal(answer.error.code, -32602);
      assert.equal(answer.error.message, 'Invalid params for resources/read: uri: must be the URI of a resource (a string)');
      const good = await post(era, 'resources/read', { uri: 'docs://a' }, 'docs://a');
      assert.equal(good.result.contents[0].text, 'doc a');
    });
  });
}
