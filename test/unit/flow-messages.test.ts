import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { callerFields } from '../../lib/access/caller-fields.js';
import type { CallerIdentity } from '../../lib/access/access-policy.js';
import { toolCancelMessage, toolExecuteMessage } from '../../lib/mcp/calls/call-messages.js';
import { executionContextOf } from '../../lib/mcp/calls/direct-tool-call.js';
import { requestMessage } from '../../lib/mcp/content/content-messages.js';
import { contentContextOf } from '../../lib/mcp/content/content-requests.js';
import type { ContentHandlerDependencies } from '../../lib/mcp/content/content-types.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';

// What a flow receives is built member by member on every call (docs/development.md): these hold
// each message to its members, their order (what a debug pane shows) and what never reaches a flow.

const SIGNED_IN: CallerIdentity = {
  subject: 'alice',
  email: 'alice@example.test',
  groups: ['mcp-users'],
  client: 'claude',
  session: 'a1b2c3d4e5f6',
  scopes: ['mcp:tools'],
};
const tool = parseToolConfig({ toolName: 'echo', endpoint: '/mcp', inputSchema: '{"type":"object"}' });

describe('callerFields', () => {
  it('copies subject, e-mail, groups and client, in that order, and never the session or scopes', () => {
    const fields = callerFields(SIGNED_IN);
    assert.deepEqual(Object.keys(fields), ['subject', 'email', 'groups', 'client']);
    assert.deepEqual(fields, { subject: 'alice', email: 'alice@example.test', groups: ['mcp-users'], client: 'claude' });
  });

  it('leaves out what is not known, and is a new object each time', () => {
    assert.deepEqual(Object.keys(callerFields({ client: 'codex' })), ['client']);
    const anonymous = {};
    assert.notEqual(callerFields(anonymous), callerFields(anonymous));
    assert.deepEqual(callerFields(anonymous), {});
  });
});

describe("a tool call's msg.mcp (executionContextOf)", () => {
  it('shows a signed-in caller without session or scopes, then the call, in order', () => {
    const context = executionContextOf(SIGNED_IN, '/mcp', tool, '2025-11-25', 7);
    assert.deepEqual(Object.keys(context), ['subject', 'email', 'groups', 'client', 'endpoint', 'tool', 'protocolVersion', 'requestId']);
    assert.deepEqual(context, { subject: 'alice', email: 'alice@example.test', groups: ['mcp-users'], client: 'claude', endpoint: '/mcp', tool: 'echo', protocolVersion: '2025-11-25', requestId: 7 });
  });

  it("names the editor's user after the caller fields for a Try-it call", () => {
    const context = executionContextOf({ editor: { user: 'admin' } }, '/mcp', tool, '2026-07-28', 'r-1');
    assert.deepEqual(Object.keys(context), ['editor', 'endpoint', 'tool', 'protocolVersion', 'requestId']);
    assert.deepEqual(context.editor, { user: 'admin' });
  });
});

describe('the mcp-tool-execute and mcp-tool-cancel messages', () => {
  it('carries the plain call as before: name, arguments, id and whether progress is watched', () => {
    const message = toolExecuteMessage({ executionId: 'e-1', toolName: 'echo', arguments: { text: 'hi' } }, executionContextOf({}, '/mcp', tool, '2025-11-25', 1));
    assert.equal(message.topic, 'mcp-tool-execute');
    assert.deepEqual(Object.keys(message.payload), ['toolName', 'arguments', 'executionId', 'progressToken']);
    assert.deepEqual(message.payload, { toolName: 'echo', arguments: { text: 'hi' }, executionId: 'e-1', progressToken: false });
    assert.deepEqual(message.mcp, { endpoint: '/mcp', tool: 'echo', protocolVersion: '2025-11-25', requestId: 1 });
  });

  it("adds the log level, the client's capabilities and a later round's fields after them", () => {
    const context = executionContextOf({}, '/mcp', tool, '2026-07-28', 2);
    const message = toolExecuteMessage(
      { executionId: 'e-2', toolName: 'echo', arguments: {}, progressToken: true, logLevel: 'info', clientCapabilities: { elicitation: {} }, input: { round: 1, inputResponses: { ok: true }, state: 's' } },
      context,
    );
    assert.deepEqual(Object.keys(message.payload), ['toolName', 'arguments', 'executionId', 'progressToken', 'logLevel', 'clientCapabilities', 'inputRound', 'inputResponses', 'state']);
    assert.equal(message.payload['progressToken'], true);
    assert.equal(message.payload['inputRound'], 1);
  });

  it('cancels with the id, the reason and the same msg.mcp', () => {
    const context = executionContextOf({}, '/mcp', tool, '2025-11-25', 3);
    assert.deepEqual(toolCancelMessage('e-3', 'timeout', context), { topic: 'mcp-tool-cancel', payload: { executionId: 'e-3', reason: 'timeout' }, mcp: context });
  });
});

describe("a read's or prompt's message", () => {
  const deps = { path: '/mcp' } as ContentHandlerDependencies;
  const exchange = { caller: SIGNED_IN, signal: new AbortController().signal, protocolVersion: '2025-11-25', requestId: 4 };

  it("shows the caller without session or scopes, then the item and the request, in order", () => {
    const context = contentContextOf(deps, exchange, { resource: 'docs://{id}' });
    assert.deepEqual(Object.keys(context), ['subject', 'email', 'groups', 'client', 'endpoint', 'resource', 'protocolVersion', 'requestId']);
    assert.deepEqual(Object.keys(contentContextOf(deps, exchange, { prompt: 'report' })), ['subject', 'email', 'groups', 'client', 'endpoint', 'prompt', 'protocolVersion', 'requestId']);
  });

  it('puts the execution id last, after a later round\'s fields, in a new payload each time', () => {
    const context = contentContextOf(deps, exchange, { resource: 'docs://{id}' });
    const call = { kind: 'resource-read' as const, uri: 'docs://7', variables: { id: '7' }, context };
    const first = requestMessage('e-4', call);
    assert.deepEqual(Object.keys(first.payload), ['uri', 'variables', 'executionId']);
    assert.notEqual(requestMessage('e-4', call).payload, first.payload);
    const asked = requestMessage('e-5', { ...call, input: { round: 1, inputResponses: { ok: true } } });
    assert.deepEqual(Object.keys(asked.payload), ['uri', 'variables', 'inputRound', 'inputResponses', 'executionId']);
    assert.equal(asked.mcp, context);
  });
});
