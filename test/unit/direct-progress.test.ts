import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DEFAULTS } from '../../lib/core/defaults.js';
import type { ExecutionRequest } from '../../lib/execution/broker.js';
import type { CallFinished } from '../../lib/mcp/calls/call-types.js';
import { EventStreamAnswer, KeepAliveTicker } from '../../lib/mcp/event-stream-answer.js';
import type { McpEndpoint } from '../../lib/mcp/endpoint/mcp-endpoint.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';
import { recordingLogger } from '../support/recording-logger.js';
import { sdkUse } from '../support/sdk-use.js';
import { messagesIn, postWithoutReading as rawPost, readUntil, streamEnded, waitFor } from '../support/unread-post.js';
import { localEndpoint, modernMeta, serveEndpoint, type ServedEndpoint } from '../support/served-endpoint.js';

// Calls with a progress token take the direct path (direct-tool-call.ts): what the SDK's path did for
// them must still hold there — a client that does not read gets a bounded backlog and a count of
// what was dropped, progress keeps a call past its time limit, a client that hangs up cancels the
// call — and nothing is left behind (keep-alive timers) once a stream ends.

const REPORTS = 10_000;
const MESSAGE = 'x'.repeat(4096);
/** One more report may start while the backlog is just under the bound. */
const SLACK = 64 * 1024;

let endpoint: McpEndpoint;
let served: ServedEndpoint;
const sockets: Socket[] = [];
const finished: CallFinished[] = [];
const abandoned: string[] = [];
const logger = recordingLogger();

function flow(request: ExecutionRequest): void {
  const id = request.executionId;
  switch (request.toolName) {
    case 'chatty': {
      // 10,000 reports of 4 KB, 100 per turn of the event loop, then the answer.
      let sent = 0;
      const batch = () => {
        for (let i = 0; i < 100; i += 1) endpoint.progress(id, { progress: ++sent, message: MESSAGE });
        if (sent < REPORTS) setImmediate(batch);
        else endpoint.settle(id, { result: 'done reporting' });
      };
      return void setImmediate(batch);
    }
    case 'slow': {
      // Longer than its 1 s time limit, kept alive by a report every 300 ms.
      let step = 0;
      const timer = setInterval(() => {
        step += 1;
        if (step < 6) return void endpoint.progress(id, { progress: step, total: 6 });
        clearInterval(timer);
        endpoint.settle(id, { result: 'finished late' });
      }, 300);
      return;
    }
    case 'silent':
      return;
  }
}

before(async () => {
  endpoint = localEndpoint({
    serverName: 'direct-progress',
    maxInFlight: 4,
    logger,
    onCallFinished: (event) => finished.push(event),
    onAbandoned: (_id, reason) => abandoned.push(reason),
    execute: flow,
  });
  const ANY = '{"type":"object"}';
  endpoint.setCatalog(
    new ToolCatalog([
      parseToolConfig({ toolName: 'chatty', endpoint: '/mcp', inputSchema: ANY }),
      parseToolConfig({ toolName: 'slow', endpoint: '/mcp', inputSchema: ANY, timeout: 1, maxDuration: 30 }),
      parseToolConfig({ toolName: 'silent', endpoint: '/mcp', inputSchema: ANY }),
    ]),
  );
  served = await serveEndpoint(endpoint);
  served.server.on('connection', (socket) => sockets.push(socket));
});
after(async () => {
  for (const socket of sockets) socket.destroy();
  await served.close();
});

const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
const postWithoutReading = (body: unknown, headers: Record<string, string>) => rawPost(served.port, sockets, body, headers);
const modernHeaders = (name: string) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });
function callOf(era: 'legacy' | 'modern', name: string, token: string) {
  const meta = era === 'modern' ? { ...modernMeta({}), progressToken: token } : { progressToken: token };
  return { body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: meta } }, headers: era === 'modern' ? modernHeaders(name) : LEGACY };
}

function post(body: unknown, headers: Record<string, string>): Promise<{ status: number; type: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: served.port, method: 'POST', path: '/mcp', agent: false, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

for (const era of ['legacy', 'modern'] as const) {
  describe(`a direct call with a progress token (${era === 'modern' ? '2026-07-28' : '2025-11-25'})`, { timeout: 60_000 }, () => {
    it('keeps what waits for a client that does not read bounded, drops the rest with a count, and still ends with the result', async () => {
      const before = finished.length;
      const runs = sdkUse.transportRuns;
      const connects = sdkUse.serverConnects;
      const { body, headers } = callOf(era, 'chatty', `chatty-${era}`);
      const { client, server: serverSocket } = postWithoutReading(body, headers);
      await waitFor(() => finished.length > before);
      assert.equal(sdkUse.transportRuns - runs + sdkUse.serverConnects - connects, 0, 'served on the direct path');
      assert.equal(finished[before]!.outcome, 'success');
      const held = serverSocket().writableLength;
      assert.ok(held <= DEFAULTS.maxCallStreamBacklogBytes + SLACK, `${held} bytes wait for a client that does not read`);

      const messages = messagesIn(await readUntil(client, streamEnded));
      const reports = messages.filter((message) => message.method === 'notifications/progress');
      assert.ok(reports.length > 0 && reports.length < REPORTS, `${reports.length} reports delivered`);
      assert.ok(reports.every((report, i) => i === 0 || report.params.progress > reports[i - 1]!.params.progress), 'in order');
      assert.equal(reports[0]!.params.progressToken, `chatty-${era}`);
      assert.equal(messages.at(-1)!.result.content[0].text, 'done reporting');
      // No log level was asked for, so the client hears no notice; the operator's log does.
      assert.equal(messages.filter((message) => message.method === 'notifications/message').length, 0);
      assert.ok(logger.lines.some((line) => /^warn a call on \/mcp dropped \d+ progress reports/.test(line)), JSON.stringify(logger.lines));
    });

    it('progress keeps a call alive past its time limit, each report reaching the client', async () => {
      const { body, headers } = callOf(era, 'slow', `slow-${era}`);
      const answer = await post(body, headers);
      assert.equal(answer.type, 'text/event-stream');
      const messages = messagesIn(answer.text);
      assert.deepEqual(
        messages.filter((message) => message.method === 'notifications/progress').map((message) => message.params),
        [1, 2, 3, 4, 5].map((progress) => ({ progressToken: `slow-${era}`, progress, total: 6 })),
      );
      assert.equal(messages.at(-1)!.result.content[0].text, 'finished late');
    });

    it('a client that hangs up ends the call as cancelled, and the flow is told', async () => {
      const before = finished.length;
      const { body, headers } = callOf(era, 'silent', `silent-${era}`);
      const { client } = postWithoutReading(body, headers);
      await new Promise((resolve) => setTimeout(resolve, 100));
      client.destroy();
      await waitFor(() => finished.length > before);
      assert.equal(finished[before]!.outcome, 'cancelled');
      assert.equal(abandoned.at(-1), 'disconnected');
    });
  });
}

describe('an event stream answer', () => {
  let server: Server;
  let port: number;
  const ticker = new KeepAliveTicker(20);
  const answers: EventStreamAnswer[] = [];

  before(async () => {
    server = createServer((_req, res) => {
      const answer = new EventStreamAnswer(res, ticker);
      answers.push(answer);
      answer.open();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends keep-alive frames while it is open, and forgets the stream once it ends or its client leaves', async () => {
    const received: string[] = [];
    const ended = new Promise<void>((resolve) => {
      httpRequest({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => received.push(chunk));
        res.on('end', resolve);
      }).end();
    });
    await waitFor(() => received.join('').split(': keepalive\n\n').length > 3);
    assert.equal(ticker.size, 1);
    answers[0]!.result('{"done":true}', 7);
    await ended;
    assert.match(received.join(''), /^(: keepalive\n\n)+event: message\ndata: \{"result":\{"done":true\},"jsonrpc":"2\.0","id":7\}\n\n$/);
    assert.equal(ticker.size, 0, 'an ended stream gets no more frames');

    // A client that leaves while the stream is open: it is forgotten too.
    const left = httpRequest({ host: '127.0.0.1', port, path: '/', agent: false });
    left.on('error', () => undefined);
    left.end();
    await waitFor(() => ticker.size === 1);
    left.destroy();
    await waitFor(() => ticker.size === 0);
  });

  it('is one JSON body when the answer comes before any notification', async () => {
    const plain = createServer((_req, res) => new EventStreamAnswer(res, ticker).error(3, { code: -32000, message: 'busy' }));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const text = await new Promise<string>((resolve) => {
      httpRequest({ host: '127.0.0.1', port: (plain.address() as AddressInfo).port, path: '/', agent: false }, (res) => {
        assert.equal(res.headers['content-type'], 'application/json');
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      }).end();
    });
    await new Promise<void>((resolve) => plain.close(() => resolve()));
    assert.equal(text, '{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"busy"}}');
    assert.equal(ticker.size, 0);
  });
});
