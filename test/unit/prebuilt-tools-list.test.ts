import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { plainLegacyToolsListId } from '../../lib/mcp/plain-requests.js';

const HEADERS = { 'mcp-protocol-version': '2025-11-25', accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const request = (headers: Record<string, string | undefined> = HEADERS) => ({ method: 'POST', headers }) as unknown as IncomingMessage;
const list = (extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 7, method: 'tools/list', ...extra });

describe('plainLegacyToolsListId: which tools/list requests get the prebuilt answer', () => {
  it('takes a plain first-page request with or without empty params, with a string or number id', () => {
    assert.equal(plainLegacyToolsListId(request(), list()), 7);
    assert.equal(plainLegacyToolsListId(request(), list({ params: {} })), 7);
    assert.equal(plainLegacyToolsListId(request(), list({ id: 'abc' })), 'abc');
    for (const revision of ['2025-06-18', '2025-03-26']) {
      assert.equal(plainLegacyToolsListId(request({ ...HEADERS, 'mcp-protocol-version': revision }), list()), 7, revision);
    }
  });

  it('leaves every other request to the SDK, which answers or refuses it', () => {
    const others: Array<[string, IncomingMessage, unknown]> = [
      ['a cursor', request(), list({ params: { cursor: 'x' } })],
      ['_meta', request(), list({ params: { _meta: {} } })],
      ['another method', request(), list({ method: 'tools/call' })],
      ['a notification (no id)', request(), { jsonrpc: '2.0', method: 'tools/list' }],
      ['a null id', request(), list({ id: null })],
      ['a fractional id (the SDK takes integers only)', request(), list({ id: 1.5 })],
      ['a batch', request(), [list()]],
      ['not JSON-RPC 2.0', request(), list({ jsonrpc: '1.0' })],
      ['no revision header (2025-03-26 by default, the SDK decides)', request({ ...HEADERS, 'mcp-protocol-version': undefined }), list()],
      ['a 2026 revision', request({ ...HEADERS, 'mcp-protocol-version': '2026-07-28' }), list()],
      ['an unknown revision', request({ ...HEADERS, 'mcp-protocol-version': '2024-11-05' }), list()],
      ['no event-stream in Accept', request({ ...HEADERS, accept: 'application/json' }), list()],
      ['no JSON in Accept', request({ ...HEADERS, accept: 'text/event-stream' }), list()],
      ['another content type', request({ ...HEADERS, 'content-type': 'text/plain' }), list()],
    ];
    for (const [label, req, body] of others) assert.equal(plainLegacyToolsListId(req, body), undefined, label);
  });
});
