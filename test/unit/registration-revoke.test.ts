// RFC 7009 revocation served by a real http.Server on loopback; the bearer check that must then fail
// is the bridge's own createBearerAccess over the same MemoryStore.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccessGrantCache } from '../../lib/auth/access-grant-cache.js';
import { createBearerAccess } from '../../lib/auth/bridge/bearer-access.js';
import type { BridgeContext, ProtectedEndpoint } from '../../lib/auth/bridge/bridge-context.js';
import { encodeRecord, RECORD_KINDS, type AccessGrant } from '../../lib/auth/sign-in-records.js';
import { OAuthFailure, temporarilyUnavailable } from '../../lib/auth/oauth-error.js';
import type { RevocationAuditEvent } from '../../lib/auth/registration/registration-audit.js';
import { createRevocationHandler, type RevokeRefreshToken } from '../../lib/auth/registration/revoke.js';
import { newOpaqueToken, sha256 } from '../../lib/auth/secrets.js';
import { silentLogger } from '../../lib/core/logger.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { StorageUnavailableError } from '../../lib/storage/store.js';
import { ScopeGrants } from '../../lib/auth/scope-grants.js';

const NAMESPACE = 'ns-revoke-test';
const CLIENT_ID = 'mcp-dyn-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const ENDPOINT: ProtectedEndpoint = { path: '/tools', resource: 'http://127.0.0.1:1881/tools', groups: ['staff'], serverName: 'tools' };

interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

interface Harness {
  store: MemoryStore;
  audit: RevocationAuditEvent[];
  refreshCalls: Array<[string, string]>;
  refresh: RevokeRefreshToken;
}

const harness: Harness = { store: new MemoryStore(), audit: [], refreshCalls: [], refresh: async () => undefined };
let server: Server;
let port = 0;

before(async () => {
  const handler = createRevocationHandler({
    get store() {
      return harness.store;
    },
    namespace: NAMESPACE,
    logger: silentLogger,
    audit: (event) => harness.audit.push(event),
    revokeRefreshToken: (token, clientId) => {
      harness.refreshCalls.push([token, clientId]);
      return harness.refresh(token, clientId);
    },
  });
  server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await harness.store.close();
});

beforeEach(async () => {
  await harness.store.close();
  harness.store = new MemoryStore();
  harness.audit = [];
  harness.refreshCalls = [];
  harness.refresh = async () => undefined;
});

function revoke(form: string | Record<string, string>, options: { method?: string; contentType?: string } = {}): Promise<Reply> {
  const body = typeof form === 'string' ? form : new URLSearchParams(form).toString();
  return new Promise<Reply>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/oauth/team/revoke',
        method: options.method ?? 'POST',
        agent: false,
        headers: { 'content-type': options.contentType ?? 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(body);
  });
}

/** An access token stored exactly as the token endpoint stores one. */
async function issueAccessToken(clientId = CLIENT_ID): Promise<string> {
  const token = newOpaqueToken();
  const grant: AccessGrant = {
    clientId,
    client: 'vscode',
    resource: ENDPOINT.resource,
    scope: ['mcp'],
    identity: { subject: 'alice', groups: ['staff'] },
    session: 'abcdef123456',
    expiresAt: Date.now() + 900_000,
  };
  await harness.store.put({ namespace: NAMESPACE, kind: RECORD_KINDS.access, id: sha256(token) }, encodeRecord(grant), 900);
  return token;
}

// One grant cache per store, as one per bridge: a grant the check has read stays in it until the
// revocation's announcement takes it out.
const grantCaches = new WeakMap<MemoryStore, AccessGrantCache>();

/** The endpoint's real bearer check, as an MCP GET would meet it. */
async function bearerAllows(token: string): Promise<boolean> {
  let accessGrants = grantCaches.get(harness.store);
  if (!accessGrants) grantCaches.set(harness.store, (accessGrants = new AccessGrantCache({ store: harness.store, namespace: NAMESPACE })));
  const ctx = { issuer: 'http://127.0.0.1:1881', namespace: NAMESPACE, store: harness.store, accessGrants, scopes: ['mcp'], scopeGrants: ScopeGrants.none, logger: silentLogger } as unknown as BridgeContext;
  const access = createBearerAccess(ctx, ENDPOINT, () => {});
  const req = { method: 'GET', headers: { authorization: `Bearer ${token}` }, socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
  return (await access.check(req)).allowed;
}

function assertEmpty200(reply: Reply): void {
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.text, '');
  assert.equal(reply.headers['cache-control'], 'no-store');
  assert.equal(reply.headers.pragma, 'no-cache');
}

describe('POST /oauth/<slug>/revoke', () => {
  it('revokes an access token of the requesting client, after which the bearer check fails', async () => {
    const token = await issueAccessToken();
    assert.equal(await bearerAllows(token), true);
    assertEmpty200(await revoke({ token, client_id: CLIENT_ID }));
    assert.equal(await bearerAllows(token), false);
    assert.equal(await harness.store.get({ namespace: NAMESPACE, kind: RECORD_KINDS.access, id: sha256(token) }), undefined);
    assert.deepEqual(harness.audit, [
      { event: 'oauth.revoke', outcome: 'revoked', tokenType: 'access_token', subject: 'alice', client: 'vscode', session: 'abcdef123456' },
    ]);
    assert.deepEqual(harness.refreshCalls, [], 'an access token found is not looked for among refresh tokens');
  });

  it('answers 200 and revokes nothing for another client\'s token', async () => {
    const token = await issueAccessToken('https://claude.ai/oauth/claude-code-client-metadata');
    assertEmpty200(await revoke({ token, client_id: CLIENT_ID }));
    assert.equal(await bearerAllows(token), true);
    assert.equal(harness.audit[0]?.reason, 'client_mismatch');
  });

  it('answers 200 for unknown, expired or already revoked tokens', async () => {
    assertEmpty200(await revoke({ token: 'never-issued', client_id: CLIENT_ID }));
    const token = await issueAccessToken();
    assertEmpty200(await revoke({ token, client_id: CLIENT_ID }));
    assertEmpty200(await revoke({ token, client_id: CLIENT_ID }));
    assert.deepEqual(harness.audit.map((event) => event.outcome), ['not_found', 'revoked', 'not_found']);
  });

  it('hands tokens that are not access tokens to the refresh service, with the client id, and audits whose session ended', async () => {
    harness.refresh = async (token, clientId) =>
      token === 'refresh-1' && clientId === CLIENT_ID ? { subject: 'alice', client: 'registered:vscode', session: 'abcdef123456' } : undefined;
    assertEmpty200(await revoke({ token: 'refresh-1', client_id: CLIENT_ID }));
    assert.deepEqual(harness.refreshCalls, [['refresh-1', CLIENT_ID]]);
    assert.deepEqual(harness.audit, [
      { event: 'oauth.revoke', outcome: 'revoked', tokenType: 'refresh_token', subject: 'alice', client: 'registered:vscode', session: 'abcdef123456' },
    ]);
  });

  it('asks the refresh service first when hinted, and still finds an access token after', async () => {
    const token = await issueAccessToken();
    assertEmpty200(await revoke({ token, client_id: CLIENT_ID, token_type_hint: 'refresh_token' }));
    assert.deepEqual(harness.refreshCalls, [[token, CLIENT_ID]]);
    assert.equal(await bearerAllows(token), false);
  });

  it('ignores an unknown token_type_hint', async () => {
    const token = await issueAccessToken();
    assertEmpty200(await revoke({ token, client_id: CLIENT_ID, token_type_hint: 'id_token' }));
    assert.equal(await bearerAllows(token), false);
  });

  it('refuses requests without token or client_id, with repeated parameters, or not a form', async () => {
    const refusals: Array<[Reply, number]> = [
      [await revoke({ client_id: CLIENT_ID }), 400],
      [await revoke({ token: '', client_id: CLIENT_ID }), 400],
      [await revoke({ token: 'x' }), 400],
      [await revoke(`token=a&token=b&client_id=${CLIENT_ID}`), 400],
      [await revoke(JSON.stringify({ token: 'x', client_id: CLIENT_ID }), { contentType: 'application/json' }), 400],
      [await revoke(`token=${'x'.repeat(16 * 1024)}&client_id=${CLIENT_ID}`), 413],
      [await revoke('', { method: 'GET' }), 405],
    ];
    for (const [reply, status] of refusals) {
      assert.equal(reply.status, status, reply.text);
      assert.equal(JSON.parse(reply.text).error, 'invalid_request');
      assert.equal(reply.headers['cache-control'], 'no-store');
    }
    assert.deepEqual(harness.refreshCalls, []);
  });

  it('answers 503 when storage cannot tell, since then nothing is known to be revoked', async () => {
    const token = await issueAccessToken();
    await harness.store.close();
    const reply = await revoke({ token, client_id: CLIENT_ID });
    assert.equal(reply.status, 503);
    assert.equal(JSON.parse(reply.text).error, 'temporarily_unavailable');
    assert.equal(reply.headers['retry-after'], '5');
  });

  it('answers 503 when the refresh service cannot decide, passing its own OAuth answer through', async () => {
    harness.refresh = async () => {
      throw new StorageUnavailableError('reconnecting');
    };
    assert.equal((await revoke({ token: 'refresh-1', client_id: CLIENT_ID })).status, 503);
    harness.refresh = async () => {
      throw temporarilyUnavailable();
    };
    const passed = await revoke({ token: 'refresh-1', client_id: CLIENT_ID });
    assert.equal(passed.status, 503);
    assert.equal(passed.headers['retry-after'], '5');
    harness.refresh = async () => {
      throw new OAuthFailure(400, 'invalid_request', 'refresh says no');
    };
    const refused = await revoke({ token: 'refresh-1', client_id: CLIENT_ID });
    assert.equal(refused.status, 400);
    assert.equal(JSON.parse(refused.text).error_description, 'refresh says no');
  });
});

describe('POST /oauth/<slug>/revoke without a refresh service', () => {
  it('revokes access tokens and answers 200 for everything else', async () => {
    const store = new MemoryStore();
    const handler = createRevocationHandler({ store, namespace: NAMESPACE, logger: silentLogger, audit: () => {} });
    const local = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const previousPort = port;
    port = (local.address() as AddressInfo).port;
    const previousStore = harness.store;
    harness.store = store;
    try {
      const token = await issueAccessToken();
      assertEmpty200(await revoke({ token, client_id: CLIENT_ID, token_type_hint: 'refresh_token' }));
      assert.equal(await bearerAllows(token), false);
      assertEmpty200(await revoke({ token: 'some-refresh-token', client_id: CLIENT_ID, token_type_hint: 'refresh_token' }));
    } finally {
      port = previousPort;
      harness.store = previousStore;
      await new Promise<void>((resolve) => local.close(() => resolve()));
      await store.close();
    }
  });
});
