import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { plainLegacyToolCall, plainModernToolCall, plainPromptGet, plainResourceRead } from '../../lib/mcp/plain-requests.js';

const LEGACY_HEADERS = { 'mcp-protocol-version': '2025-11-25', accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const MODERN_HEADERS = { ...LEGACY_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};
const request = (headers: Record<string, string | undefined>) => ({ method: 'POST', headers }) as unknown as IncomingMessage;
const call = (params: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params, ...extra });

describe('plainLegacyToolCall: which 2025-era tool calls may be served directly', () => {
  it('takes a name with arguments, none, or a _meta of the client’s own, under each 2025 revision', () => {
    assert.deepEqual(plainLegacyToolCall(request(LEGACY_HEADERS), call({ name: 'echo', arguments: { text: 'hi' } })), {
      id: 7,
      revision: '2025-11-25',
      name: 'echo',
      arguments: { text: 'hi' },
    });
    assert.deepEqual(plainLegacyToolCall(request(LEGACY_HEADERS), call({ name: 'echo' }))?.arguments, {});
    assert.equal(plainLegacyToolCall(request(LEGACY_HEADERS), call({ name: 'echo', _meta: { 'claudecode/toolUseId': 'x' } }))?.name, 'echo');
    for (const revision of ['2025-06-18', '2025-03-26']) {
      assert.equal(plainLegacyToolCall(request({ ...LEGACY_HEADERS, 'mcp-protocol-version': revision }), call({ name: 'echo' }))?.revision, revision);
    }
  });

  it('takes a progress token of the SDK’s type (a string or a safe integer) and says so', () => {
    assert.deepEqual(plainLegacyToolCall(request(LEGACY_HEADERS), call({ name: 'echo', _meta: { progressToken: 1 } })), {
      id: 7,
      revision: '2025-11-25',
      name: 'echo',
      arguments: {},
      progressToken: 1,
    });
    assert.equal(plainLegacyToolCall(request(LEGACY_HEADERS), call({ name: 'echo', _meta: { progressToken: 'p', mine: 2 } }))?.progressToken, 'p');
    assert.equal(plainLegacyToolCall(request(LEGACY_HEADERS), call({ name: 'echo' }))?.progressToken, undefined);
  });

  it('leaves every other shape to the SDK', () => {
    const others: Array<[string, Record<string, string | undefined>, unknown]> = [
      ['a fractional progress token', LEGACY_HEADERS, call({ name: 'echo', _meta: { progressToken: 1.5 } })],
      ['a progress token beyond the safe integers', LEGACY_HEADERS, call({ name: 'echo', _meta: { progressToken: 2 ** 60 } })],
      ['a null progress token', LEGACY_HEADERS, call({ name: 'echo', _meta: { progressToken: null } })],
      ['a progress token that is an object', LEGACY_HEADERS, call({ name: 'echo', _meta: { progressToken: {} } })],
      ['a protocol _meta key', LEGACY_HEADERS, call({ name: 'echo', _meta: { 'io.modelcontextprotocol/related-task': {} } })],
      ['a task', LEGACY_HEADERS, call({ name: 'echo', task: {} })],
      ['arguments that are no object', LEGACY_HEADERS, call({ name: 'echo', arguments: [1] })],
      ['a name that is no string', LEGACY_HEADERS, call({ name: 5 })],
      ['no params', LEGACY_HEADERS, { jsonrpc: '2.0', id: 7, method: 'tools/call' }],
      ['a fractional id', LEGACY_HEADERS, call({ name: 'echo' }, { id: 1.5 })],
      ['a null id', LEGACY_HEADERS, call({ name: 'echo' }, { id: null })],
      ['a key outside JSON-RPC', LEGACY_HEADERS, call({ name: 'echo' }, { extra: 1 })],
      ['a batch', LEGACY_HEADERS, [call({ name: 'echo' })]],
      ['no revision header', { ...LEGACY_HEADERS, 'mcp-protocol-version': undefined }, call({ name: 'echo' })],
      ['the 2026 revision', { ...LEGACY_HEADERS, 'mcp-protocol-version': '2026-07-28' }, call({ name: 'echo' })],
      ['no event streams accepted', { ...LEGACY_HEADERS, accept: 'application/json' }, call({ name: 'echo' })],
      ['another content type', { ...LEGACY_HEADERS, 'content-type': 'text/plain' }, call({ name: 'echo' })],
    ];
    for (const [label, headers, body] of others) assert.equal(plainLegacyToolCall(request(headers), body), undefined, label);
  });
});

describe('plainModernToolCall: which 2026-07-28 tool calls may be served directly', () => {
  it('takes a call whose headers repeat its method and tool and whose envelope the SDK accepts', () => {
    assert.deepEqual(plainModernToolCall(request(MODERN_HEADERS), call({ name: 'echo', arguments: { text: 'hi' }, _meta: ENVELOPE })), {
      id: 7,
      revision: '2026-07-28',
      name: 'echo',
      arguments: { text: 'hi' },
      clientCapabilities: { elicitation: {} },
    });
    const { 'io.modelcontextprotocol/clientInfo': _, ...withoutClientInfo } = ENVELOPE;
    assert.equal(plainModernToolCall(request(MODERN_HEADERS), call({ name: 'echo', _meta: withoutClientInfo }))?.name, 'echo');
  });

  it('takes a progress token of the SDK’s type beside the envelope, a new one on every call', () => {
    for (const token of ['p-1', 'p-2', 3, 4]) {
      assert.equal(plainModernToolCall(request(MODERN_HEADERS), call({ name: 'echo', _meta: { ...ENVELOPE, progressToken: token } }))?.progressToken, token);
    }
  });

  it('leaves every other shape to the SDK', () => {
    const others: Array<[string, Record<string, string | undefined>, unknown]> = [
      ['no envelope', MODERN_HEADERS, call({ name: 'echo' })],
      ['an envelope of another revision', MODERN_HEADERS, call({ name: 'echo', _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } })],
      ['client info of the wrong shape', MODERN_HEADERS, call({ name: 'echo', _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 5 } } })],
      ['capabilities of the wrong shape', MODERN_HEADERS, call({ name: 'echo', _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': 'all' } })],
      ['a log level', MODERN_HEADERS, call({ name: 'echo', _meta: { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'info' } })],
      ['a fractional progress token', MODERN_HEADERS, call({ name: 'echo', _meta: { ...ENVELOPE, progressToken: 0.5 } })],
      ['a progress token that is a list', MODERN_HEADERS, call({ name: 'echo', _meta: { ...ENVELOPE, progressToken: ['p'] } })],
      ['answers of an earlier round', MODERN_HEADERS, call({ name: 'echo', _meta: ENVELOPE, inputResponses: {}, requestState: 'x' })],
      ['no Mcp-Method header', { ...MODERN_HEADERS, 'mcp-method': undefined }, call({ name: 'echo', _meta: ENVELOPE })],
      ['an Mcp-Name of another tool', { ...MODERN_HEADERS, 'mcp-name': 'other' }, call({ name: 'echo', _meta: ENVELOPE })],
      ['no Mcp-Name header', { ...MODERN_HEADERS, 'mcp-name': undefined }, call({ name: 'echo', _meta: ENVELOPE })],
      ['a 2025 revision header', { ...MODERN_HEADERS, 'mcp-protocol-version': '2025-11-25' }, call({ name: 'echo', _meta: ENVELOPE })],
      ['no event streams accepted', { ...MODERN_HEADERS, accept: 'application/json' }, call({ name: 'echo', _meta: ENVELOPE })],
    ];
    for (const [label, headers, body] of others) assert.equal(plainModernToolCall(request(headers), body), undefined, label);
  });
});

describe('plainResourceRead and plainPromptGet: which reads and prompts may be served directly', () => {
  const body = (method: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 'r', method, params, ...extra });
  const modernHeaders = (method: string, name: string) => ({ ...LEGACY_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': name });

  it('takes a URI or a prompt name with arguments, and a _meta of the client’s own, in both eras', () => {
    assert.deepEqual(plainResourceRead(request(LEGACY_HEADERS), body('resources/read', { uri: 'a://b' })), { id: 'r', revision: '2025-11-25', envelope: undefined, uri: 'a://b' });
    assert.deepEqual(plainPromptGet(request(LEGACY_HEADERS), body('prompts/get', { name: 'p', arguments: { who: 'x' }, _meta: { mine: 1 } })), {
      id: 'r',
      revision: '2025-11-25',
      envelope: undefined,
      name: 'p',
      arguments: { who: 'x' },
    });
    assert.equal(plainPromptGet(request(LEGACY_HEADERS), body('prompts/get', { name: 'p' }))?.arguments, undefined);
    const modern = plainResourceRead(request(modernHeaders('resources/read', 'a://b')), body('resources/read', { uri: 'a://b', _meta: ENVELOPE }));
    assert.deepEqual(modern, { id: 'r', revision: '2026-07-28', envelope: ENVELOPE, uri: 'a://b' });
    assert.equal(plainPromptGet(request(modernHeaders('prompts/get', 'p')), body('prompts/get', { name: 'p', arguments: {}, _meta: ENVELOPE }))?.name, 'p');
    // Codex sends a progress token with every request; neither reads nor prompts report progress, so it changes nothing.
    assert.equal(plainResourceRead(request(LEGACY_HEADERS), body('resources/read', { uri: 'a://b', _meta: { progressToken: 1 } }))?.uri, 'a://b');
    assert.equal(plainPromptGet(request(modernHeaders('prompts/get', 'p')), body('prompts/get', { name: 'p', _meta: { ...ENVELOPE, progressToken: 'q' } }))?.name, 'p');
  });

  it('leaves every other shape to the SDK', () => {
    const others: Array<[string, () => unknown]> = [
      ['a progress token of another type', () => plainResourceRead(request(LEGACY_HEADERS), body('resources/read', { uri: 'a://b', _meta: { progressToken: true } }))],
      ['a key besides uri', () => plainResourceRead(request(LEGACY_HEADERS), body('resources/read', { uri: 'a://b', cursor: 'x' }))],
      ['a URI that is no string', () => plainResourceRead(request(LEGACY_HEADERS), body('resources/read', { uri: 5 }))],
      ['another method', () => plainResourceRead(request(LEGACY_HEADERS), body('resources/list', { uri: 'a://b' }))],
      ['arguments that are no object', () => plainPromptGet(request(LEGACY_HEADERS), body('prompts/get', { name: 'p', arguments: ['x'] }))],
      ['null arguments', () => plainPromptGet(request(LEGACY_HEADERS), body('prompts/get', { name: 'p', arguments: null }))],
      ['no revision header', () => plainPromptGet(request({ ...LEGACY_HEADERS, 'mcp-protocol-version': undefined }), body('prompts/get', { name: 'p' }))],
      ['2026-07-28: an Mcp-Name of another URI', () => plainResourceRead(request(modernHeaders('resources/read', 'a://c')), body('resources/read', { uri: 'a://b', _meta: ENVELOPE }))],
      ['2026-07-28: an Mcp-Method of another method', () => plainPromptGet(request(modernHeaders('tools/call', 'p')), body('prompts/get', { name: 'p', _meta: ENVELOPE }))],
      ['2026-07-28: no envelope', () => plainPromptGet(request(modernHeaders('prompts/get', 'p')), body('prompts/get', { name: 'p' }))],
      ['2026-07-28: a request state', () => plainResourceRead(request(modernHeaders('resources/read', 'a://b')), body('resources/read', { uri: 'a://b', requestState: 'x', _meta: ENVELOPE }))],
      ['2026-07-28: a log level', () => plainResourceRead(request(modernHeaders('resources/read', 'a://b')), body('resources/read', { uri: 'a://b', _meta: { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'info' } }))],
    ];
    for (const [label, recognise] of others) assert.equal(recognise(), undefined, label);
  });
});
