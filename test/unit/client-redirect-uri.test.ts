import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseClientMetadataDocument, type ClientMetadata } from '../../lib/auth/clients/fetch-client-metadata.js';
import { redirectUriAllowed } from '../../lib/auth/clients/redirect-uri.js';
import { CLAUDE_CODE_DOCUMENT } from '../support/client-documents.js';

function client(redirectUris: string[], extra: Record<string, unknown> = {}): ClientMetadata {
  const clientId = 'https://client.example.com/metadata.json';
  return parseClientMetadataDocument({ client_id: clientId, redirect_uris: redirectUris, ...extra }, clientId);
}

// Claude Code's published document: portless loopback URIs and no application_type.
const CLAUDE_CODE = parseClientMetadataDocument(CLAUDE_CODE_DOCUMENT, CLAUDE_CODE_DOCUMENT.client_id);

function check(metadata: ClientMetadata, allowed: readonly string[], refused: readonly string[]): void {
  for (const uri of allowed) assert.equal(redirectUriAllowed(uri, metadata), true, `expected ${uri} to be allowed`);
  for (const uri of refused) assert.equal(redirectUriAllowed(uri, metadata), false, `expected ${uri} to be refused`);
}

describe('redirectUriAllowed', () => {
  it('lets Claude Code use any port on its registered portless loopback callbacks', () => {
    check(
      CLAUDE_CODE,
      [
        'http://localhost:54321/callback',
        'http://127.0.0.1:54321/callback',
        'http://localhost:1/callback',
        'http://localhost:65535/callback',
        'http://localhost/callback',
        'http://127.0.0.1/callback',
      ],
      [],
    );
  });

  it('keeps path and query identical under the loopback rule', () => {
    check(
      CLAUDE_CODE,
      [],
      [
        'http://localhost:54321/callback/',
        'http://localhost:54321/callbacks',
        'http://localhost:54321/callback/extra',
        'http://localhost:54321/Callback',
        'http://localhost:54321/callback?code=1',
        'http://localhost:54321/callback?',
        'http://localhost:54321/',
        'http://localhost:54321',
        'http://localhost:54321/x/../callback',
        'http://localhost:54321/%63allback',
      ],
    );
  });

  it('never matches other hosts, look-alike hosts, other schemes or odd spellings', () => {
    check(
      CLAUDE_CODE,
      [],
      [
        'http://localhost.evil.com:1/callback',
        'http://127.0.0.1.evil.com:1/callback',
        'http://evil.com:54321/callback',
        'http://evil.com/callback',
        'http://[::1]:54321/callback',
        'http://127.0.0.2:54321/callback',
        'https://localhost:54321/callback',
        'http://LOCALHOST:54321/callback',
        'http://user@localhost:54321/callback',
        'http://localhost:54321@evil.com/callback',
        'http://localhost:54321\\@evil.com/callback',
        'http://localhost:54321/callback#fragment',
        'http://localhost/callback#',
        'http://localhost:/callback',
        'http://localhost:0/callback',
        'http://localhost:054321/callback',
        'http://localhost:65536/callback',
        'http://localhost:99999/callback',
        ' http://localhost:54321/callback',
        'http://localhost:54321/callback ',
        '',
      ],
    );
  });

  it('applies the loopback rule to explicitly native clients too', () => {
    check(client(['http://localhost/callback'], { application_type: 'native' }), ['http://localhost:4242/callback'], []);
  });

  it('gives web clients exact matching only', () => {
    const web = client(['http://localhost/callback', 'http://127.0.0.1:3000/cb'], { application_type: 'web' });
    check(
      web,
      ['http://localhost/callback', 'http://127.0.0.1:3000/cb'],
      ['http://localhost:54321/callback', 'http://127.0.0.1:3001/cb'],
    );
  });

  it('requires the same per-session path for Codex-style callbacks on any port', () => {
    const codex = client(['http://127.0.0.1:41000/callback/f3a9c1']);
    check(
      codex,
      ['http://127.0.0.1:41000/callback/f3a9c1', 'http://127.0.0.1:52000/callback/f3a9c1'],
      [
        'http://127.0.0.1:52000/callback/other',
        'http://127.0.0.1:52000/callback',
        'http://localhost:52000/callback/f3a9c1',
      ],
    );
  });

  it('handles [::1] and registered queries under the loopback rule', () => {
    check(client(['http://[::1]/cb']), ['http://[::1]:5000/cb'], ['http://[0:0::1]:5000/cb', 'http://localhost:5000/cb']);
    const withQuery = client(['http://localhost/cb?app=1']);
    check(withQuery, ['http://localhost:9/cb?app=1'], ['http://localhost:9/cb?app=2', 'http://localhost:9/cb']);
  });

  it('matches https and private-use redirect URIs exactly, loopback or not', () => {
    const hosted = client([
      'https://claude.ai/api/mcp/auth_callback',
      'https://localhost/cb',
      'cursor://anysphere.cursor-mcp/oauth/callback',
    ]);
    check(
      hosted,
      ['https://claude.ai/api/mcp/auth_callback', 'https://localhost/cb', 'cursor://anysphere.cursor-mcp/oauth/callback'],
      [
        'https://claude.ai/api/mcp/auth_callback/',
        'https://claude.ai:443/api/mcp/auth_callback',
        'https://claude.ai/api/mcp/auth_callback?x=1',
        'https://claude.ai/api/mcp/auth_callback#x',
        'https://claude.ai/api/mcp',
        'https://localhost:8443/cb',
        'http://localhost:8443/cb',
        'cursor://anysphere.cursor-mcp/oauth/callback/x',
      ],
    );
  });
});
