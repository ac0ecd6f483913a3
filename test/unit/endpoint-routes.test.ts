import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { createLocalAccess } from '../../lib/access/local-access.js';
import { silentLogger } from '../../lib/core/logger.js';
import { buildEndpointParts, type EndpointParts } from '../../lib/mcp/endpoint/endpoint-parts.js';
import { endpointRoutes } from '../../lib/mcp/endpoint/endpoint-routes.js';
import { Inbound, type RequestRoute } from '../../lib/mcp/endpoint/request-routes.js';
import { authInfoFor } from '../../lib/mcp/exchange.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';
import { modernMeta } from '../support/served-endpoint.js';
import { HangUp } from '../../lib/core/hang-up.js';

// The endpoint's route table on its own: which kind of request each body and header set is taken
// for. Nothing is served here; the runtime and protocol tests check what each route answers.

const LEGACY = { 'mcp-protocol-version': '2025-11-25', accept: 'application/json, text/event-stream', 'content-type': 'application/json', host: '127.0.0.1:1880' };
const MODERN_META = modernMeta();
const MODERN = { ...LEGACY, 'mcp-protocol-version': '2026-07-28' };

function partsFor(directAnswers: boolean): { parts: EndpointParts; routes: readonly RequestRoute[] } {
  const parts = buildEndpointParts({ serverName: 'routes', path: '/mcp', access: createLocalAccess(), maxInFlight: 4, logger: silentLogger, execute: () => undefined, directAnswers });
  parts.deployed.tools = new ToolCatalog([parseToolConfig({ toolName: 'echo', endpoint: '/mcp', inputSchema: '{"type":"object"}' })]);
  return { parts, routes: endpointRoutes(parts, { path: '/mcp', logger: silentLogger, directAnswers }) };
}

async function kindOf(routes: readonly RequestRoute[], headers: Record<string, string>, body: unknown, method = 'POST'): Promise<string> {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.url = '/mcp';
  req.headers = headers;
  const res = new ServerResponse(req);
  const exchange = { caller: {}, disconnected: new HangUp(), response: res };
  const inbound = new Inbound(req, res, body, exchange, authInfoFor(exchange, 'local'));
  for (const candidate of routes) {
    if ((await candidate.recognise(inbound)) !== undefined) return candidate.kind;
  }
  return 'none';
}

describe('the endpoint\'s route table', () => {
  const direct = partsFor(true);
  const viaSdk = partsFor(false);
  after(async () => {
    await Promise.all([direct.parts.modern.close(), direct.parts.legacy.close(), viaSdk.parts.modern.close(), viaSdk.parts.legacy.close()]);
  });

  it('takes each request shape for its kind, the first route that recognises it', async () => {
    const cases: Array<[string, Record<string, string>, unknown, string]> = [
      ['a cancel', LEGACY, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }, 'cancel (notifications/cancelled)'],
      ['answers to questions', LEGACY, { jsonrpc: '2.0', id: 'a.b.0', result: { action: 'accept' } }, '2025 answers to a flow\'s questions'],
      ['a first tools/list page', LEGACY, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, '2025 tools/list, first page'],
      ['a second tools/list page', LEGACY, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'x' } }, '2025-era exchange'],
      ['a plain 2025 call', LEGACY, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } }, 'plain tools/call'],
      ['a 2025 call asking for progress', LEGACY, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', _meta: { progressToken: 1 } } }, 'plain tools/call'],
      // The SDK's era check does not take it as a 2025 request: it is refused as a 2026-07-28 one.
      ['a 2025 call with a progress token of another type', LEGACY, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', _meta: { progressToken: 1.5 } } }, '2026-07-28 tools request'],
      ['a call of a tool not served here', LEGACY, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope' } }, '2025-era exchange'],
      ['a plain 2026 call', { ...MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' }, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: MODERN_META } }, 'plain tools/call'],
      ['a 2026 call whose Mcp-Name header disagrees', { ...MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'other' }, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', _meta: MODERN_META } }, '2026-07-28 tools request'],
      ['a 2026 tools/list', { ...MODERN, 'mcp-method': 'tools/list' }, { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: MODERN_META } }, '2026-07-28 tools/list, first page'],
      ['a 2026 tools/list of a later page', { ...MODERN, 'mcp-method': 'tools/list' }, { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: MODERN_META, cursor: 'x' } }, '2026-07-28 tools request'],
      ['a listen stream', { ...MODERN, 'mcp-method': 'subscriptions/listen' }, { jsonrpc: '2.0', id: 5, method: 'subscriptions/listen', params: { _meta: MODERN_META, notifications: {} } }, '2026-07-28 subscriptions/listen'],
      ['a 2026 resources/list', { ...MODERN, 'mcp-method': 'resources/list' }, { jsonrpc: '2.0', id: 6, method: 'resources/list', params: { _meta: MODERN_META } }, 'any other 2026-07-28 request'],
      ['a Host that forms no URL', { ...MODERN, host: 'bad host' }, { jsonrpc: '2.0', id: 6, method: 'server/discover' }, 'request without a valid Host'],
    ];
    for (const [what, headers, body, kind] of cases) {
      assert.equal(await kindOf(direct.routes, headers, body), kind, what);
    }
  });

  it('sends the hot requests through the SDK too when direct answers are off', async () => {
    assert.ok(!viaSdk.routes.some((candidate) => candidate.kind === 'plain tools/call' || candidate.kind.includes('first page')));
    assert.equal(await kindOf(viaSdk.routes, LEGACY, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } }), '2025-era exchange');
    assert.equal(await kindOf(viaSdk.routes, LEGACY, { jsonrpc: '2.0', id: 1, method: 'tools/list' }), '2025-era exchange');
  });

  it('ends with a route that takes anything, so no request goes unanswered', async () => {
    assert.equal(await kindOf(direct.routes, { ...MODERN, 'mcp-method': 'made/up' }, { jsonrpc: '2.0', id: 9, method: 'made/up', params: { _meta: MODERN_META } }), 'any other 2026-07-28 request');
    assert.equal(await kindOf(direct.routes, { host: '127.0.0.1' }, { nonsense: true }), 'any other 2026-07-28 request');
  });
});
