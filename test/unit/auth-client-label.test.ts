import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientLabel } from '../../lib/auth/client-label.js';

/** Asserts that every client_id URL in `urls` is labelled `expected`. */
function labelsAll(expected: string, urls: readonly string[]): void {
  for (const url of urls) assert.equal(clientLabel(url), expected, url);
}

describe('clientLabel', () => {
  it("names Claude's hosts 'claude'", () => {
    labelsAll('claude', [
      'https://claude.ai/oauth/claude-code-client-metadata',
      'https://app.claude.ai/client.json',
      'https://a.b.claude.ai/client.json',
      'https://claude.com/client.json',
      'https://CLAUDE.AI/client.json',
    ]);
  });

  it("names ChatGPT's hosts 'chatgpt'", () => {
    labelsAll('chatgpt', ['https://chatgpt.com/connector/metadata.json', 'https://openai.com/client.json', 'https://platform.openai.com/client.json']);
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
    for (const host of ['notclaude.ai', 'claude.ai.evil.example', 'fakechatgpt.com']) labelsAll(host, [`https://${host}/client.json`]);
  });

  it("names a malformed client_id 'unknown'", () => {
    labelsAll('unknown', ['not a url', '', 'claude.ai', 'https://']);
  });

  it("names a client_id URL without a host 'unknown'", () => {
    labelsAll('unknown', ['urn:example:client', 'file:///etc/passwd']);
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
