import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClientMetadataError, type ClientMetadataErrorReason } from '../../lib/auth/clients/client-metadata-error.js';
import { parseClientMetadataDocument } from '../../lib/auth/clients/fetch-client-metadata.js';

const URL_ = 'https://client.example.com/oauth/metadata.json';

function document(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { client_id: URL_, redirect_uris: ['https://client.example.com/callback'], ...overrides };
}

function assertRefused(json: unknown, reason: ClientMetadataErrorReason, field?: string): void {
  assert.throws(
    () => parseClientMetadataDocument(json, URL_),
    (error: unknown) => {
      assert.ok(error instanceof ClientMetadataError, String(error));
      assert.equal(error.reason, reason);
      assert.equal(error.code, `client_metadata_${reason}`);
      if (field !== undefined) assert.ok(error.message.includes(field), error.message);
      return true;
    },
  );
}

const REDIRECTS = [
  'https://client.example.com/callback',
  'http://127.0.0.1/callback',
  'cursor://anysphere.cursor-mcp/oauth/callback',
];

describe('parseClientMetadataDocument', () => {
  it('returns the document normalized to camelCase, frozen, unknown fields dropped', () => {
    const metadata = parseClientMetadataDocument(
      document({
        client_name: '  Example Client ',
        application_type: 'native',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        client_uri: 'https://client.example.com/',
        logo_uri: 'https://client.example.com/logo.png',
        scope: 'openid mcp',
        token_endpoint_auth_method: 'none',
        software_id: 'ignored',
        redirect_uris: REDIRECTS,
      }),
      URL_,
    );
    assert.deepEqual(metadata, {
      clientId: URL_,
      redirectUris: REDIRECTS,
      clientName: 'Example Client',
      applicationType: 'native',
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      clientUri: 'https://client.example.com/',
      logoUri: 'https://client.example.com/logo.png',
      scope: 'openid mcp',
    });
    assert.ok(Object.isFrozen(metadata));
    assert.ok(Object.isFrozen(metadata.redirectUris));
    assert.ok(Object.isFrozen(metadata.grantTypes));
  });

  it('omits optional fields that are absent, and an empty client_name', () => {
    const metadata = parseClientMetadataDocument(document({ client_name: '   ' }), URL_);
    assert.deepEqual(Object.keys(metadata).sort(), ['clientId', 'redirectUris']);
  });

  it('reports a client_id that differs from the URL as client_id_mismatch', () => {
    assertRefused(document({ client_id: 'https://client.example.com/oauth/other.json' }), 'client_id_mismatch');
    assertRefused(document({ client_id: `${URL_}/` }), 'client_id_mismatch');
  });

  it('refuses a document that is not a JSON object', () => {
    for (const json of [null, [], 'text', 42, [document()]]) assertRefused(json, 'invalid_document');
  });

  it('refuses a missing or non-string client_id', () => {
    assertRefused(document({ client_id: undefined }), 'invalid_document', 'client_id');
    assertRefused(document({ client_id: 7 }), 'invalid_document', 'client_id');
  });

  it('accepts only public clients', () => {
    for (const method of ['client_secret_basic', 'client_secret_post', 'private_key_jwt', null, '']) {
      assertRefused(document({ token_endpoint_auth_method: method }), 'invalid_document', 'token_endpoint_auth_method');
    }
    assertRefused(document({ client_secret: 'shh' }), 'invalid_document', 'client_secret');
  });

  for (const redirectUris of [
    undefined,
    [],
    'https://client.example.com/callback',
    [42],
    ['/callback'],
    ['client.example.com/callback'],
    ['https://client.example.com/callback#frag'],
    ['https://client.example.com/callback#'],
    ['javascript:alert(1)'],
    ['data:text/html,hi'],
    ['file:///etc/passwd'],
    ['view-source:https://client.example.com/callback'],
    ['filesystem:https://client.example.com/temporary/x'],
    ['http://client.example.com/callback'],
    [' https://client.example.com/callback'],
    ['https://client.example.com/call back'],
    ['https://user:pass@client.example.com/callback'],
    ['https://client.example.com/callback', 'not a url'],
  ]) {
    it(`refuses redirect_uris ${JSON.stringify(redirectUris)}`, () => {
      assertRefused(document({ redirect_uris: redirectUris }), 'invalid_document', 'redirect_uris');
    });
  }

  it('refuses malformed optional fields', () => {
    assertRefused(document({ application_type: 'desktop' }), 'invalid_document', 'application_type');
    assertRefused(document({ client_name: 7 }), 'invalid_document', 'client_name');
    assertRefused(document({ grant_types: 'authorization_code' }), 'invalid_document', 'grant_types');
    assertRefused(document({ response_types: [1] }), 'invalid_document', 'response_types');
    assertRefused(document({ client_uri: 'javascript:alert(1)' }), 'invalid_document', 'client_uri');
    assertRefused(document({ logo_uri: 'logo.png' }), 'invalid_document', 'logo_uri');
    assertRefused(document({ scope: ['openid'] }), 'invalid_document', 'scope');
  });
});
