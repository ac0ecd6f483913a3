import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isPaletteError } from '../../lib/core/errors.js';
import { parsePinnedClients } from '../../lib/auth/clients/pinned-clients.js';
import { CLAUDE_CODE_DOCUMENT } from '../support/client-documents.js';

const CLAUDE = CLAUDE_CODE_DOCUMENT;
const INTERNAL = {
  client_id: 'https://tools.example.com/mcp-client.json',
  client_name: 'Internal tool',
  application_type: 'web',
  redirect_uris: ['https://tools.example.com/oauth/callback'],
};

function assertInvalid(text: string, pattern: RegExp): void {
  assert.throws(
    () => parsePinnedClients(text),
    (error: unknown) => {
      assert.ok(isPaletteError(error), String(error));
      assert.equal(error.code, 'invalid_pinned_clients');
      assert.match(error.message, pattern);
      return true;
    },
  );
}

describe('parsePinnedClients', () => {
  it('returns an empty map for blank text or an empty array', () => {
    assert.equal(parsePinnedClients('').size, 0);
    assert.equal(parsePinnedClients('  \n\t').size, 0);
    assert.equal(parsePinnedClients('[]').size, 0);
  });

  it('accepts a single document object keyed by its client_id', () => {
    const clients = parsePinnedClients(JSON.stringify(CLAUDE, null, 2));
    assert.deepEqual([...clients.keys()], [CLAUDE.client_id]);
    const claude = clients.get(CLAUDE.client_id);
    assert.equal(claude?.clientName, 'Claude Code');
    assert.deepEqual(claude?.redirectUris, CLAUDE.redirect_uris);
    assert.ok(Object.isFrozen(claude));
  });

  it('accepts an array of documents', () => {
    const clients = parsePinnedClients(JSON.stringify([CLAUDE, INTERNAL]));
    assert.deepEqual([...clients.keys()], [CLAUDE.client_id, INTERNAL.client_id]);
    assert.equal(clients.get(INTERNAL.client_id)?.applicationType, 'web');
  });

  it('refuses a repeated client_id', () => {
    const text = JSON.stringify([CLAUDE, INTERNAL, { ...CLAUDE, client_name: 'again' }]);
    assertInvalid(text, /pinned client 3 repeats client_id https:\/\/claude\.ai/);
  });

  it('refuses text that is not JSON', () => {
    assertInvalid('{ client_id: https://claude.ai }', /not valid JSON/);
  });

  it('refuses a client_id that is not a canonical https URL', () => {
    for (const clientId of [
      'http://tools.example.com/mcp-client.json',
      'tools-client',
      'https://TOOLS.example.com/x',
      'https://tools.example.com/x#y',
      42,
    ]) {
      const text = JSON.stringify([CLAUDE, { ...INTERNAL, client_id: clientId }]);
      assertInvalid(text, /^pinned client 2: client_id must be/);
    }
  });

  it('refuses an element that is not a document object', () => {
    assertInvalid(JSON.stringify([CLAUDE, 'https://tools.example.com/mcp-client.json']), /^pinned client 2:/);
    assertInvalid('"https://tools.example.com/mcp-client.json"', /^pinned client 1:/);
    assertInvalid('null', /^pinned client 1:/);
  });

  it('validates each document like a fetched one', () => {
    assertInvalid(JSON.stringify({ ...INTERNAL, redirect_uris: [] }), /^pinned client 1: .*redirect_uris/);
    const confidential = { ...INTERNAL, token_endpoint_auth_method: 'client_secret_basic' };
    assertInvalid(JSON.stringify(confidential), /token_endpoint_auth_method/);
  });
});
