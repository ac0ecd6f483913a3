import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { DEFAULTS } from '../../lib/core/defaults.js';
import type { ExecutionRequest } from '../../lib/execution/broker.js';
import type { CallFinished } from '../../lib/mcp/calls/call-types.js';
import { McpEndpoint } from '../../lib/mcp/endpoint/mcp-endpoint.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';
import { recordingLogger } from '../support/recording-logger.js';
import { messagesIn, postWithoutReading as rawPost, readUntil, streamEnded, waitFor } from '../support/unread-post.js';
import { localEndpoint, modernMeta, serveEndpoint, type ServedEndpoint } from '../support/served-endpoint.js';

// A flow writes 10,000 log lines of 4 KB to a client that asked for them and does not read its
// response. What the server holds for that client stays bounded (the unsent bytes of the call's own
// socket are measured), the excess is dropped and counted, and the call still ends with its result
// once the client reads again.

const LINES = 10_000;
const LINE = 'x'.repeat(4096);
/** One more line or notice may start while the backlog is just under the bound. */
const SLACK = 64 * 1024;

let endpoint: McpEndpoint;
let served: ServedEndpoint;
let port: number;
const sockets: Socket[] = [];
const finished: CallFinished[] = [];
const logger = recordingLogger();

/** The "flow": lines in batches of 100, one batch per turn of the event loop, then the answer. */
function chattyFlow(request: ExecutionRequest): void {
  let written = 0;
  const batch = () => {
    for (let i = 0; i < 100; i += 1) endpoint.log(request.executionId, { level: 'info', data: `${written++} ${LINE}` });
    if (written < LINES) setImmediate(batch);
    else endpoint.settle(request.executionId, { result: 'done talking' });
  };
  setImmediate(batch);
}

before(async () => {
  endpoint = localEndpoint({
    serverName: 'backlog-test',
    maxInFlight: 4,
    logger,
    onCallFinished: (event) => finished.push(event),
    execute: chattyFlow,
  });
  endpoint.setCatalog(new ToolCatalog([parseToolConfig({ toolName: 'chatty', endpoint: '/mcp', inputSchema: '{"type":"object"}' })]));
  served = await serveEndpoint(endpoint);
  served.server.on('connection', (socket) => sockets.push(socket));
  port = served.port;
});
after(async () => {
  for (const socket of sockets) socket.destroy();
  await served.close();
});

const MODERN_META = modernMeta({}, { 'io.modelcontextprotocol/logLevel': 'info' });
const postWithoutReading = (body: unknown, headers: Record<string, string>) => rawPost(port, sockets, body, headers);

describe('a call whose client does not read its log lines', () => {
  const calls = {
    modern: () =>
      postWithoutReading(
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chatty', arguments: {}, _meta: MODERN_META } },
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'chatty' },
      ),
    legacy: () =>
      postWithoutReading({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chatty', arguments: {} } }, { 'mcp-protocol-version': '2025-11-25' }),
  };

  before(async () => {
    // The 2025-era caller (Local access: all callers are one) chooses its level once.
    const { client } = postWithoutReading({ jsonrpc: '2.0', id: 0, method: 'logging/setLevel', params: { level: 'info' } }, { 'mcp-protocol-version': '2025-11-25' });
    assert.match(await readUntil(client, (text) => text.includes('"result"')), /"result":\{\}/);
  });

  for (const era of ['modern', 'legacy'] as const) {
    it(`keeps what waits for the client bounded, drops the rest with a count, and still ends the call (${era})`, async () => {
      const before = finished.length;
      const { client, server: serverSocket } = calls[era]();
      await waitFor(() => finished.length > before);
      assert.equal(finished[before]!.outcome, 'success');
      // Everything the flow wrote has been handled; what waits for the client is what the server holds.
      const held = serverSocket().writableLength;
      assert.ok(held <= DEFAULTS.maxCallStreamBacklogBytes + SLACK, `${held} bytes wait for a client that does not read`);

      const messages = messagesIn(await readUntil(client, streamEnded));
      const lines = messages.filter((message) => message.method === 'notifications/message');
      const notice = lines.at(-1)!;
      const delivered = lines.length - 1;
      assert.ok(delivered < LINES, `${delivered} lines delivered`);
      assert.equal(notice.params.level, 'warning');
      assert.equal(notice.params.logger, 'node-red-mcp');
      assert.equal(
        notice.params.data,
        `${LINES - delivered} progress reports and log lines of this call were dropped: the client did not read them as fast as the flow wrote them (at most ${DEFAULTS.maxCallStreamBacklogBytes / 1024} KiB wait per call).`,
      );
      assert.equal(messages.at(-1)!.result.content[0].text, 'done talking', 'the call still ends with its result');
      assert.ok(logger.lines.some((line) => /^warn a call on \/mcp dropped \d+ progress reports and log lines its client did not read/.test(line)), JSON.stringify(logger.lines));
    });
  }
});
