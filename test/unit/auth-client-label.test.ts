import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientLabel } from '../../lib/auth/client-label.js';

describe('clientLabel', () => {
  it("names Claude's hosts 'claude'", () => {
    assert.equal(clientLabel('https://claude.ai/oauth/claude-code-client-metadata'), 'claude');
    assert.equal(clientLabel('https://app.claude.ai/client.json'), 'claude');
    assert.equal(clientLabel('https://a.b.claude.ai/client.json'), 'claude');
    assert.equal(clientLabel('https://claude.com/client.json'), 'claude');
    assert.equal(clientLabel('https://CLAUDE.AI/client.json'), 'claude');
  });

  it("names ChatGPT's hosts 'chatgpt'", () => {
    assert.equal(clientLabel('https://chatgpt.com/connector/metadata.json'), 'chatgpt');
    assert.equal(clientLabel('https://openai.com/client.json'), 'chatgpt');
    assert.equal(clientLabel('https://platform.openai.com/client.json'), 'chatgpt');
  });

  it("names a client whose name contains Codex 'codex', whatever its host", () => {
    assert.equal(clientLabel('https://openai.com/codex.json', 'OpenAI Codex'), 'codex');
    assert.equal(clientLabel('https://tools.example.com/c.json', 'codex cli'), 'codex');
  });

  it('names any other client by its host', () => {
    assert.equal(clientLabel('https://tools.example.com/mcp-client.json'), 'tools.example.com');
    assert.equal(clientLabel('https://Tools.Example.COM:8443/x.json', 'Internal tool'), 'tools.example.com');
    assert.equal(clientLabel('http://localhost:3000/client'), 'localhost');
  });

  it('does not match a look-alike host by suffix alone', () => {
    assert.equal(clientLabel('https://notclaude.ai/client.json'), 'notclaude.ai');
    assert.equal(clientLabel('https://claude.ai.evil.example/client.json'), 'claude.ai.evil.example');
    assert.equal(clientLabel('https://fakechatgpt.com/client.json'), 'fakechatgpt.com');
  });

  it("names a malformed client_id 'unknown'", () => {
    assert.equal(clientLabel('not a url'), 'unknown');
    assert.equal(clientLabel(''), 'unknown');
    assert.equal(clientLabel('claude.ai'), 'unknown');
    assert.equal(clientLabel('https://'), 'unknown');
  });

  it("names a client_id URL without a host 'unknown'", () => {
    assert.equal(clientLabel('urn:example:client'), 'unknown');
    assert.equal(clientLabel('file:///etc/passwd'), 'unknown');
  });
});

const REGISTERED_ID = `mcp-dyn-${'A'.repeat(32)}`;

describe('clientLabel for registered clients (ids without a host)', () => {
  it('recognises well-known client names under "registered:" and calls the rest "registered"', () => {
    assert.equal(clientLabel(REGISTERED_ID, 'Cursor'), 'registered:cursor');
    assert.equal(clientLabel(REGISTERED_ID, 'Visual Studio Code'), 'registered:vscode');
    assert.equal(clientLabel(REGISTERED_ID, 'MCP Inspector'), 'registered:mcp-inspector');
    assert.equal(clientLabel(REGISTERED_ID, 'My homemade agent'), 'registered');
    assert.equal(clientLabel(REGISTERED_ID), 'registered');
  });

  it('never gives a registered client the label of a verified one, whatever name it registered', () => {
    // Registration is open to anyone: the name is the registrant's claim, not the client's identity.
    for (const [name, label] of [
      ['Claude Code', 'registered:claude'],
      ['Claude Code (team)', 'registered:claude'],
      ['OpenAI Codex', 'registered:codex'],
      ['codex', 'registered:codex'],
      ['ChatGPT', 'registered:chatgpt'],
    ] as const) {
      assert.equal(clientLabel(REGISTERED_ID, name), label, name);
      assert.notEqual(clientLabel(REGISTERED_ID, name), clientLabel('https://claude.ai/oauth/claude-code-client-metadata', name));
    }
    // Nor does any other id without a metadata document behind it.
    assert.equal(clientLabel('not a url', 'CODEX'), 'registered:codex');
  });
});
