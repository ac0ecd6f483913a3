import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import {
  AS_METADATA_PATHS,
  authorizationServerMetadata,
  PRM_PREFIX,
  prmPathFor,
  protectedResourceMetadata,
  serveDocument,
} from '../../lib/auth/bridge/metadata.js';

const ISSUER = 'https://mcp.example.com';
const SCOPES = ['openid', 'profile', 'email', 'groups'] as const;

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

async function call(handler: (req: IncomingMessage, res: ServerResponse) => void, method: string): Promise<Answer> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<Answer>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/.well-known/x', method, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(method === 'POST' ? '{}' : undefined);
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('authorizationServerMetadata', () => {
  const metadata = authorizationServerMetadata(ISSUER, 'team-login', SCOPES);

  it('names the issuer and the endpoints under /oauth/<slug>/', () => {
    assert.equal(metadata.issuer, ISSUER);
    assert.equal(metadata.authorization_endpoint, 'https://mcp.example.com/oauth/team-login/authorize');
    assert.equal(metadata.token_endpoint, 'https://mcp.example.com/oauth/team-login/token');
  });

  it('offers the authorization code flow with PKCE S256 only and public clients only', () => {
    assert.deepEqual(metadata.response_types_supported, ['code']);
    assert.deepEqual(metadata.grant_types_supported, ['authorization_code']);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(metadata.token_endpoint_auth_methods_supported, ['none']);
    assert.deepEqual(metadata.response_modes_supported, ['query']);
  });

  it('announces client ID metadata documents and the iss parameter', () => {
    assert.equal(metadata.client_id_metadata_document_supported, true);
    assert.equal(metadata.authorization_response_iss_parameter_supported, true);
  });

  it('lists the scopes as a copy', () => {
    const scopes = ['openid', 'email'];
    const document = authorizationServerMetadata(ISSUER, 'a', scopes);
    assert.deepEqual(document.scopes_supported, ['openid', 'email']);
    scopes.push('later');
    assert.deepEqual(document.scopes_supported, ['openid', 'email']);
  });

  it('does not announce what the bridge does not do', () => {
    const keys = Object.keys(metadata);
    assert.ok(!keys.includes('registration_endpoint'), 'no dynamic client registration');
    assert.ok(!(metadata.code_challenge_methods_supported as string[]).includes('plain'));
    assert.ok(!(metadata.grant_types_supported as string[]).includes('implicit'));
  });

  it('is served at both the RFC 8414 and the OIDC discovery paths', () => {
    assert.deepEqual([...AS_METADATA_PATHS], ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
  });
});

describe('protectedResourceMetadata', () => {
  it('names the resource, the authorization server, the scopes and header bearer tokens', () => {
    const document = protectedResourceMetadata(`${ISSUER}/mcp`, ISSUER, SCOPES, 'team-tools');
    assert.deepEqual(document, {
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: [ISSUER],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'team-tools',
    });
  });

  it('leaves resource_name out when there is no name', () => {
    const document = protectedResourceMetadata(ISSUER, ISSUER, SCOPES);
    assert.equal('resource_name' in document, false);
    assert.equal(document.resource, ISSUER);
  });

  it('lives under /.well-known/oauth-protected-resource followed by the endpoint path (RFC 9728 §3.1)', () => {
    assert.equal(PRM_PREFIX, '/.well-known/oauth-protected-resource');
    assert.equal(
      prmPathFor({ path: '/team/mcp', resource: `${ISSUER}/team/mcp`, groups: ['g'], serverName: 's' }),
      '/.well-known/oauth-protected-resource/team/mcp',
    );
  });
});

describe('serveDocument', () => {
  const document = { issuer: ISSUER, scopes_supported: ['openid'] };

  it('answers GET with 200 JSON', async () => {
    const res = await call(serveDocument(() => document), 'GET');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(res.body), document);
  });

  it('answers HEAD with 200 and no body', async () => {
    const res = await call(serveDocument(() => document), 'HEAD');
    assert.equal(res.status, 200);
    assert.equal(res.body, '');
  });

  it('answers POST (and other methods) with 405 and Allow: GET', async () => {
    let asked = 0;
    const handler = serveDocument(() => {
      asked++;
      return document;
    });
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await call(handler, method);
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.allow, 'GET');
      assert.equal(JSON.parse(res.body).error, 'method_not_allowed');
    }
    assert.equal(asked, 0, 'the document is not built for a refused method');
  });

  it('answers 404 when the document function returns undefined', async () => {
    const res = await call(serveDocument(() => undefined), 'GET');
    assert.equal(res.status, 404);
    assert.equal(JSON.parse(res.body).error, 'not_found');
    assert.ok(!res.body.includes(ISSUER));
  });

  it('asks the document function on every request, so it follows changes', async () => {
    let current: object | undefined = { n: 1 };
    const handler = serveDocument(() => current);
    assert.deepEqual(JSON.parse((await call(handler, 'GET')).body), { n: 1 });
    current = { n: 2 };
    assert.deepEqual(JSON.parse((await call(handler, 'GET')).body), { n: 2 });
    current = undefined;
    assert.equal((await call(handler, 'GET')).status, 404);
  });
});
