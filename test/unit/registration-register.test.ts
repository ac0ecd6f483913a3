// The RFC 7591 registration endpoint, served by a real http.Server on loopback and backed by a
// MemoryStore on a fake clock; requests come from 127.0.0.1 and, for the second client address,
// from 127.0.0.2 (Linux routes all of 127/8 to loopback).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders } from 'node:http';
import type { Logger } from '../../lib/core/logger.js';
import { createRegistrationHandler, type RegistrationContext } from '../../lib/auth/registration/register-client.js';
import type { RegistrationAuditEvent } from '../../lib/auth/registration/registration-audit.js';
import { parseRegistrationPolicy, type RegistrationPolicy } from '../../lib/auth/registration/registration-policy.js';
import { isRegisteredClientId, registrationKey } from '../../lib/auth/registration/registration-record.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { serveOnLoopback } from '../support/loopback-http.js';

interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly json: any;
}

interface SendOptions {
  readonly method?: string;
  readonly contentType?: string;
  readonly from?: string;
  /** Sends the body chunked, without Content-Length. */
  readonly chunked?: boolean;
}

interface Harness {
  readonly store: MemoryStore;
  readonly audit: RegistrationAuditEvent[];
  readonly logs: string[];
  readonly clock: { now: () => number; advance: (ms: number) => void };
  send(body: unknown, options?: SendOptions): Promise<Reply>;
  close(): Promise<void>;
}

const NAMESPACE = 'ns-registration-test';

function capturingLogger(lines: string[]): Logger {
  const record = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

async function startHarness(policy: RegistrationPolicy, extra: Partial<RegistrationContext> = {}): Promise<Harness> {
  // Aligned to the hour so every rate window starts with the test.
  let time = 1_700_002_800_000;
  const clock = { now: () => time, advance: (ms: number) => void (time += ms) };
  const store = new MemoryStore({ now: clock.now });
  const audit: RegistrationAuditEvent[] = [];
  const logs: string[] = [];
  const handler = createRegistrationHandler({
    store,
    namespace: NAMESPACE,
    policy,
    logger: capturingLogger(logs),
    audit: (event) => audit.push(event),
    now: clock.now,
    ...extra,
  });
  const server = await serveOnLoopback((req, res) => void handler(req, res));
  return {
    store,
    audit,
    logs,
    clock,
    send: (body, options = {}) => send(server.port, body, options),
    async close() {
      await server.close();
      await store.close();
    },
  };
}

function send(port: number, body: unknown, options: SendOptions): Promise<Reply> {
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  return new Promise<Reply>((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
    if (!options.chunked) headers['content-length'] = String(Buffer.byteLength(text));
    const req = request(
      { host: '127.0.0.1', port, path: '/oauth/team/register', method: options.method ?? 'POST', agent: false, headers, localAddress: options.from ?? '127.0.0.1' },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const replyText = Buffer.concat(chunks).toString();
          let json: unknown;
          try {
            json = JSON.parse(replyText);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: replyText, json });
        });
        res.on('error', reject);
      },
    );
    // A server that answers early (413) may close before the whole body is written.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    if (options.chunked) {
      const half = Math.floor(text.length / 2);
      req.write(text.slice(0, half));
      req.end(text.slice(half));
    } else {
      req.end(text);
    }
  });
}

// What the clients send (CLIENTS.md); field sets as the clients' own registration code builds them.
/** The body most clients send: a public client (no secret) using the code and refresh grants. */
const publicClient = (clientName: string, redirectUris: string[]) => ({
  client_name: clientName,
  redirect_uris: redirectUris,
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});
const CLAUDE_CODE = publicClient('Claude Code (team)', ['http://localhost:51234/callback']);
const CODEX = publicClient('Codex', ['http://127.0.0.1:40123/callback/7f3c2a9e']);
const VS_CODE = {
  client_name: 'Visual Studio Code',
  redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
  grant_types: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_method: 'none',
};
const CURSOR = publicClient('Cursor', ['cursor://anysphere.cursor-mcp/oauth/callback', 'https://cursor.com/oauth/callback', 'http://127.0.0.1:8788/callback']);
const MCP_INSPECTOR = {
  redirect_uris: ['http://localhost:6274/oauth/callback', 'http://localhost:6274/oauth/callback/debug'],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  client_name: 'MCP Inspector',
  client_uri: 'https://github.com/modelcontextprotocol/inspector',
  scope: 'mcp',
};
const CLAUDE_AI = publicClient('Claude', ['https://claude.ai/api/mcp/auth_callback']);

const enabled = (fields: Record<string, unknown> = {}) => parseRegistrationPolicy({ dcrEnabled: true, ...fields });

function assertRegistered(reply: Reply, request: Record<string, unknown>, applicationType: 'web' | 'native'): void {
  assert.equal(reply.status, 201, reply.text);
  assert.match(String(reply.headers['content-type']), /^application\/json/);
  assert.equal(reply.headers['cache-control'], 'no-store');
  const body = reply.json;
  assert.ok(isRegisteredClientId(body.client_id), body.client_id);
  assert.equal(typeof body.client_id_issued_at, 'number');
  assert.equal(body.token_endpoint_auth_method, 'none');
  assert.deepEqual(body.redirect_uris, request.redirect_uris);
  assert.deepEqual(body.grant_types, request.grant_types ?? ['authorization_code']);
  assert.deepEqual(body.response_types, request.response_types ?? ['code']);
  assert.equal(body.client_name, request.client_name);
  assert.equal(body.application_type, applicationType);
  for (const absent of ['client_secret', 'client_secret_expires_at', 'registration_access_token', 'registration_client_uri', 'client_uri', 'scope']) {
    assert.equal(absent in body, false, absent);
  }
}

describe('POST /oauth/<slug>/register: the clients that need it', () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness({ ...enabled({ dcrSchemes: 'cursor' }), perAddress: { max: 1000, windowSeconds: 600 } });
  });
  after(() => harness.close());

  it('registers Claude Code\'s fallback registration (loopback, refresh)', async () => {
    assertRegistered(await harness.send(CLAUDE_CODE), CLAUDE_CODE, 'native');
  });

  it('registers Codex (127.0.0.1 with a per-login path)', async () => {
    assertRegistered(await harness.send(CODEX), CODEX, 'native');
  });

  it('registers VS Code with its loopback and vscode.dev redirects', async () => {
    assertRegistered(await harness.send(VS_CODE), VS_CODE, 'native');
  });

  it('registers Cursor\'s cursor:// callback when the scheme is allow-listed', async () => {
    assertRegistered(await harness.send(CURSOR), CURSOR, 'native');
  });

  it('registers MCP Inspector, dropping the display fields nobody vouches for', async () => {
    const reply = await harness.send(MCP_INSPECTOR);
    assertRegistered(reply, MCP_INSPECTOR, 'native');
  });

  it('registers claude.ai (https only, so a web client with exact redirect matching)', async () => {
    assertRegistered(await harness.send(CLAUDE_AI), CLAUDE_AI, 'web');
  });

  it('defaults grant and response types and the (public) auth method', async () => {
    const minimal = { redirect_uris: ['http://127.0.0.1:9000/cb'] };
    const reply = await harness.send(minimal);
    assertRegistered(reply, minimal, 'native');
    assert.deepEqual(reply.json.grant_types, ['authorization_code']);
  });

  it('issues a fresh opaque id each time and stores the record under kind "client" for the unused period', async () => {
    const first = await harness.send(CLAUDE_CODE);
    const second = await harness.send(CLAUDE_CODE);
    assert.notEqual(first.json.client_id, second.json.client_id);
    const stored = JSON.parse((await harness.store.get(registrationKey(NAMESPACE, first.json.client_id)))!);
    assert.deepEqual(stored.redirectUris, CLAUDE_CODE.redirect_uris);
    assert.equal(stored.clientName, 'Claude Code (team)');
    harness.clock.advance(30 * 86_400_000 - 1_000);
    assert.notEqual(await harness.store.get(registrationKey(NAMESPACE, first.json.client_id)), undefined);
    harness.clock.advance(1_000);
    assert.equal(await harness.store.get(registrationKey(NAMESPACE, first.json.client_id)), undefined);
  });

  it('audits each registration with the issued id, and logs it without secrets', async () => {
    const reply = await harness.send(CODEX);
    const event = harness.audit.at(-1)!;
    assert.deepEqual(event, { event: 'oauth.register', outcome: 'success', clientId: reply.json.client_id, client: 'registered:codex', clientName: 'Codex', ip: '127.0.0.1' });
    assert.ok(harness.logs.includes(`info: registered dynamic client ${reply.json.client_id} (Codex)`));
  });

  it('keeps one copy of repeated redirect URIs and grant types', async () => {
    const reply = await harness.send({ redirect_uris: ['https://a.example/cb', 'https://a.example/cb'], grant_types: ['authorization_code', 'authorization_code'] });
    assert.equal(reply.status, 201);
    assert.deepEqual(reply.json.redirect_uris, ['https://a.example/cb']);
    assert.deepEqual(reply.json.grant_types, ['authorization_code']);
  });
});

describe('POST /oauth/<slug>/register: refusals', () => {
  let harness: Harness;
  before(async () => {
    // A high per-address limit: this suite sends many requests from 127.0.0.1.
    harness = await startHarness({ ...enabled(), perAddress: { max: 1000, windowSeconds: 600 } });
  });
  after(() => harness.close());

  const assertRefused = (reply: Reply, status: number, error: string) => {
    assert.equal(reply.status, status, reply.text);
    assert.equal(reply.json.error, error, reply.text);
    assert.equal(typeof reply.json.error_description, 'string');
    assert.equal(reply.headers['cache-control'], 'no-store');
  };

  it('refuses Cursor\'s cursor:// callback when the scheme is not allow-listed', async () => {
    const reply = await harness.send(CURSOR);
    assertRefused(reply, 400, 'invalid_redirect_uri');
    assert.match(reply.json.error_description, /redirect_uris\[0\].*"cursor"/);
  });

  it('refuses redirect URIs that are not https, loopback http or an allowed scheme', async () => {
    for (const uri of [
      'http://example.com/callback',
      'http://192.168.1.10:8080/callback',
      'javascript:alert(document.cookie)',
      'https://app.example.com/callback#section',
      'https://user:password@app.example.com/callback',
      'https://user@app.example.com/callback',
      'data:text/html,<script>1</script>',
      'file:///tmp/callback',
      'myapp://callback',
      'http://localhost.attacker.example/callback',
      'relative/callback',
    ]) {
      assertRefused(await harness.send({ ...CLAUDE_AI, redirect_uris: ['https://ok.example/cb', uri] }), 400, 'invalid_redirect_uri');
    }
  });

  it('refuses missing, empty, oversized and too many redirect URIs', async () => {
    const withoutUris: Record<string, unknown> = { ...CLAUDE_AI };
    delete withoutUris.redirect_uris;
    assertRefused(await harness.send(withoutUris), 400, 'invalid_redirect_uri');
    assertRefused(await harness.send({ ...CLAUDE_AI, redirect_uris: [] }), 400, 'invalid_redirect_uri');
    assertRefused(await harness.send({ ...CLAUDE_AI, redirect_uris: 'https://claude.ai/api/mcp/auth_callback' }), 400, 'invalid_redirect_uri');
    assertRefused(await harness.send({ ...CLAUDE_AI, redirect_uris: [`https://a.example/${'x'.repeat(2048)}`] }), 400, 'invalid_redirect_uri');
    const eleven = Array.from({ length: 11 }, (_, index) => `https://a.example/cb${index}`);
    assertRefused(await harness.send({ ...CLAUDE_AI, redirect_uris: eleven }), 400, 'invalid_redirect_uri');
    assert.equal((await harness.send({ ...CLAUDE_AI, redirect_uris: eleven.slice(1) })).status, 201);
  });

  it('refuses confidential clients: any auth method but none', async () => {
    for (const method of ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'tls_client_auth', '', null]) {
      const reply = await harness.send({ ...CLAUDE_CODE, token_endpoint_auth_method: method });
      assertRefused(reply, 400, 'invalid_client_metadata');
    }
    const reply = await harness.send({ ...CLAUDE_CODE, token_endpoint_auth_method: 'client_secret_basic' });
    assert.match(reply.json.error_description, /public clients/);
  });

  it('refuses grant and response types this server does not serve', async () => {
    for (const fields of [
      { grant_types: ['client_credentials'] },
      { grant_types: ['authorization_code', 'implicit'] },
      { grant_types: ['refresh_token'] },
      { grant_types: [] },
      { grant_types: 'authorization_code' },
      { response_types: ['token'] },
      { response_types: ['code', 'id_token'] },
      { application_type: 'browser' },
    ]) {
      assertRefused(await harness.send({ ...CLAUDE_CODE, ...fields }), 400, 'invalid_client_metadata');
    }
  });

  it('refuses client names that are too long or not one printable line', async () => {
    for (const name of ['x'.repeat(201), 'Claude\nCode', 'evil\u202Eedoc', 42]) {
      assertRefused(await harness.send({ ...CLAUDE_CODE, client_name: name }), 400, 'invalid_client_metadata');
    }
    assert.equal((await harness.send({ ...CLAUDE_CODE, client_name: 'x'.repeat(200) })).status, 201);
  });

  it('answers 415 to anything but JSON, 400 to malformed JSON or a non-object', async () => {
    assertRefused(await harness.send('redirect_uris=https://a.example/cb', { contentType: 'application/x-www-form-urlencoded' }), 415, 'invalid_request');
    assertRefused(await harness.send(JSON.stringify(CLAUDE_AI), { contentType: 'text/plain' }), 415, 'invalid_request');
    assertRefused(await harness.send('{"redirect_uris": [', {}), 400, 'invalid_client_metadata');
    assertRefused(await harness.send('', {}), 400, 'invalid_client_metadata');
    assertRefused(await harness.send([CLAUDE_AI]), 400, 'invalid_client_metadata');
    assert.equal((await harness.send(CLAUDE_AI, { contentType: 'application/json; charset=utf-8' })).status, 201);
  });

  it('answers 413 to a body over 8 KiB, declared or chunked', async () => {
    const big = { ...CLAUDE_AI, padding: 'x'.repeat(8 * 1024) };
    assertRefused(await harness.send(big), 413, 'invalid_request');
    assertRefused(await harness.send(big, { chunked: true }), 413, 'invalid_request');
  });

  it('answers 405 with Allow: POST to other methods', async () => {
    const reply = await harness.send(undefined, { method: 'GET' });
    assertRefused(reply, 405, 'invalid_request');
    assert.equal(reply.headers.allow, 'POST');
  });

  it('audits metadata refusals by their RFC 7591 code', async () => {
    await harness.send({ ...CLAUDE_CODE, redirect_uris: ['http://example.com/cb'] });
    assert.deepEqual(harness.audit.at(-1), { event: 'oauth.register', outcome: 'refused', reason: 'invalid_redirect_uri', ip: '127.0.0.1' });
  });
});

describe('POST /oauth/<slug>/register: floods', () => {
  it('limits one address to 10 registrations per 10 minutes while another address still registers', async () => {
    const harness = await startHarness(enabled());
    try {
      for (let index = 0; index < 10; index += 1) assert.equal((await harness.send(CLAUDE_CODE)).status, 201, `registration ${index + 1}`);
      harness.clock.advance(60_000);
      const limited = await harness.send(CLAUDE_CODE);
      assert.equal(limited.status, 429, limited.text);
      assert.equal(limited.json.error, 'temporarily_unavailable');
      assert.equal(limited.headers['retry-after'], '540');
      assert.equal((await harness.send(CLAUDE_CODE)).status, 429);

      assert.equal((await harness.send(VS_CODE, { from: '127.0.0.2' })).status, 201);

      // Refusals are audited once per window, not once per flooded request.
      assert.equal(harness.audit.filter((event) => event.reason === 'rate_limited_address').length, 1);
      harness.clock.advance(540_000);
      assert.equal((await harness.send(CLAUDE_CODE)).status, 201);
    } finally {
      await harness.close();
    }
  });

  it('does not spend the quota on requests it refuses anyway', async () => {
    const harness = await startHarness(enabled());
    try {
      for (let index = 0; index < 20; index += 1) assert.equal((await harness.send({ ...CLAUDE_CODE, token_endpoint_auth_method: 'client_secret_post' })).status, 400);
      assert.equal((await harness.send(CLAUDE_CODE)).status, 201);
    } finally {
      await harness.close();
    }
  });

  it('stops every address at the configuration-wide cap until the window ends', async () => {
    const harness = await startHarness({ ...enabled(), perNamespace: { max: 3, windowSeconds: 3600 } });
    try {
      assert.equal((await harness.send(CLAUDE_CODE, { from: '127.0.0.1' })).status, 201);
      assert.equal((await harness.send(CLAUDE_CODE, { from: '127.0.0.2' })).status, 201);
      assert.equal((await harness.send(CLAUDE_CODE, { from: '127.0.0.3' })).status, 201);
      const capped = await harness.send(CLAUDE_CODE, { from: '127.0.0.4' });
      assert.equal(capped.status, 429);
      assert.equal(capped.headers['retry-after'], '3600');
      assert.equal((await harness.send(CLAUDE_CODE, { from: '127.0.0.5' })).status, 429);
      assert.equal(harness.logs.filter((line) => line.startsWith('warn: dynamic client registration paused')).length, 1);
      assert.equal(harness.audit.filter((event) => event.reason === 'rate_limited_namespace').length, 1);
      harness.clock.advance(3_600_000);
      assert.equal((await harness.send(CLAUDE_CODE, { from: '127.0.0.4' })).status, 201);
    } finally {
      await harness.close();
    }
  });
});

describe('POST /oauth/<slug>/register: configuration and storage', () => {
  it('answers 404 when registration is disabled', async () => {
    const harness = await startHarness(parseRegistrationPolicy({}));
    try {
      const reply = await harness.send(CLAUDE_CODE);
      assert.equal(reply.status, 404);
      assert.equal(harness.store.size, 0);
    } finally {
      await harness.close();
    }
  });

  it('warns once that memory storage loses registrations on restart', async () => {
    const harness = await startHarness(enabled());
    try {
      assert.equal(harness.logs.filter((line) => line.startsWith('warn: dynamic client registrations are kept in memory')).length, 1);
    } finally {
      await harness.close();
    }
  });

  it('leaves refresh_token out of registered grants when the bridge cannot refresh', async () => {
    const harness = await startHarness(enabled(), { allowRefreshToken: false });
    try {
      const reply = await harness.send(CLAUDE_CODE);
      assert.equal(reply.status, 201);
      assert.deepEqual(reply.json.grant_types, ['authorization_code']);
    } finally {
      await harness.close();
    }
  });

  it('answers 503 temporarily_unavailable, with Retry-After and no internals, when storage is down', async () => {
    const harness = await startHarness(enabled());
    try {
      await harness.store.close();
      const reply = await harness.send(CLAUDE_CODE);
      assert.equal(reply.status, 503);
      assert.equal(reply.json.error, 'temporarily_unavailable');
      assert.equal(reply.headers['retry-after'], '5');
      assert.ok(!/closed|storage/i.test(reply.json.error_description), reply.json.error_description);
      assert.ok(harness.logs.includes('error: client registration could not be stored: storage unavailable (closed)'), harness.logs.join('\n'));
      assert.deepEqual(harness.audit.at(-1), { event: 'oauth.register', outcome: 'refused', reason: 'storage_unavailable', ip: '127.0.0.1' });
    } finally {
      await harness.close();
    }
  });
});
