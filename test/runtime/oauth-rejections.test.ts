import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { answer, oauthServer, oidcAuth, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { postJsonRpc, waitForEndpoint, type RawResponse } from '../support/mcp-http.js';
import { nodeRedPackage, repoRoot, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import {
  authorizeUrl,
  beginRawSignIn,
  claudeLikeDocument,
  exchangeCode,
  finishRawSignIn,
  pkcePair,
  postToken,
  rawAccessToken,
  rawSignIn,
  type RawSignInOptions,
} from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { readProblemPage } from '../support/problem-page.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startTestIdp, type TestIdp } from '../support/test-idp.js';

/**
 * Every way the bridge says no, against real parts: Node-RED with the packed palette, oidc-provider
 * as the company IdP, a real redis-server as storage. Raw HTTP (redirect: 'manual') so each test sees
 * exactly the status, the OAuth `error` and whether a code or token was handed out.
 *
 * One Node-RED serves it all: runtime `rt` (Redis storage) with two OAuth endpoints /a and /b under
 * slug `team`, runtime `rt-short` (memory storage, 1-second tokens) with /short under slug `short`,
 * and four endpoints whose configuration is invalid and must not start.
 */

const CLIENT_A = 'https://client.test/oauth/claude-like.json';
const CLIENT_B = 'https://other-client.test/oauth/metadata.json';
// A loopback redirect on a port nobody listens on: the tests read the Location, never follow it.
const REDIRECT = 'http://127.0.0.1:49152/callback';
const BRIDGE_CLIENT = { id: 'node-red-bridge', secret: 'bridge-secret-for-tests' };
// Values that must never reach the log: the endpoints refuse to read these variables at all.
const CREDENTIAL_SECRET = `nr-credential-secret-${randomBytes(12).toString('hex')}`;
const FOREIGN_REDIS_PASSWORD = `foreign-${randomBytes(12).toString('hex')}`;
const FOREIGN_REDIS_URL = `redis://:${FOREIGN_REDIS_PASSWORD}@127.0.0.1:1/0`;

const WHO = `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: { subject: msg.mcp.subject, endpoint: msg.mcp.endpoint } };\nreturn msg;`;

function catalog(type: string): Record<string, any> {
  return catalogIn('en-US', type);
}

function catalogIn(language: string, type: string): Record<string, any> {
  return JSON.parse(readFileSync(join(repoRoot, 'locales', language, `${type}.json`), 'utf8'))[type];
}

function fill(template: string, params: Record<string, string> = {}): string {
  return template.replace(/__(\w+)__/g, (_, key: string) => params[key] ?? `__${key}__`);
}

function flows(port: number, shortPort: number, issuer: string): FlowNode[] {
  const common = { issuer, clientId: BRIDGE_CLIENT.id, secretEnv: 'MCP_TEST_OIDC_SECRET' };
  const invalid = (id: string, slug: string, path: string, auth: Partial<Parameters<typeof oidcAuth>[1]>): FlowNode[] => [
    oidcAuth(`auth-${id}`, { storage: 'mem', ...common, slug, pinned: [claudeLikeDocument(CLIENT_A)], ...auth }),
    oauthServer(`fs-${id}`, { runtime: 'rt', auth: `auth-${id}`, path, groups: 'mcp-users' }),
  ];
  return [
    tab(),
    runtimeWithBaseUrl('rt', port),
    runtimeWithBaseUrl('rt-short', shortPort),
    storage('store', 'redis', 'MCP_TEST_REDIS_URL'),
    storage('mem', 'memory'),
    oidcAuth('auth', {
      storage: 'store',
      ...common,
      clientHosts: 'localhost',
      pinned: [claudeLikeDocument(CLIENT_A), { ...claudeLikeDocument(CLIENT_B), client_name: 'Another client' }],
    }),
    oidcAuth('auth-short', { storage: 'mem', ...common, slug: 'short', ttl: 1, pinned: [claudeLikeDocument(CLIENT_A)] }),
    oauthServer('fs-a', { runtime: 'rt', auth: 'auth', path: '/a', groups: 'mcp-users', wires: ['who-a'] }),
    oauthServer('fs-b', { runtime: 'rt', auth: 'auth', path: '/b', groups: 'mcp-users', wires: ['who-b'] }),
    oauthServer('fs-short', { runtime: 'rt-short', auth: 'auth-short', path: '/short', groups: 'mcp-users', wires: ['who-short'] }),
    answer('who-a', WHO, 'fs-a'),
    answer('who-b', WHO, 'fs-b'),
    answer('who-short', WHO, 'fs-short'),
    tool('t-a', { name: 'whoami', endpoint: '/a' }),
    tool('t-b', { name: 'whoami', endpoint: '/b' }),
    tool('t-short', { name: 'whoami', endpoint: '/short' }),
    // Configurations that must keep their endpoints from starting.
    ...invalid('http-pinned', 'bad-http', '/bad-http-pinned', { pinned: [claudeLikeDocument('http://client.test/oauth/plain-http.json')] }),
    ...invalid('no-redirects', 'bad-redirects', '/bad-no-redirects', {
      pinned: [{ client_id: 'https://client.test/oauth/no-redirects.json', client_name: 'No redirects', token_endpoint_auth_method: 'none' }],
    }),
    storage('foreign-store', 'redis', 'REDIS_URL'),
    ...invalid('foreign-store', 'bad-store', '/bad-foreign-store', { storage: 'foreign-store' }),
    ...invalid('foreign-secret', 'bad-secret', '/bad-foreign-secret', { secretEnv: 'NODE_RED_CREDENTIAL_SECRET' }),
  ];
}

function callTool(url: string, token: string): Promise<RawResponse> {
  return postJsonRpc(url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, { authorization: `Bearer ${token}` });
}

function toolResult(response: RawResponse): any {
  const message = response.json();
  assert.equal(message.error, undefined, `tool call failed: ${response.body}`);
  return JSON.parse(message.result.content[0].text);
}

async function getJson(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers, redirect: 'manual' });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe(`OAuth bridge rejections on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let redis: RedisServer;
  let nodeRed: NodeRedProcess;
  let base: string;
  let shortBase: string;
  let urlA: string;
  let urlB: string;
  /** A sign-in by `username` at endpoint /a (unless `resource` says otherwise) through slug `team`. */
  let signIn: (username?: string, overrides?: Partial<RawSignInOptions>) => RawSignInOptions;

  before(async () => {
    const port = await freePort();
    const shortPort = await freePort();
    base = `http://127.0.0.1:${port}`;
    shortBase = `http://127.0.0.1:${shortPort}`;
    urlA = `${base}/a`;
    urlB = `${base}/b`;
    idp = await startTestIdp({
      clients: [
        {
          client_id: BRIDGE_CLIENT.id,
          client_secret: BRIDGE_CLIENT.secret,
          redirect_uris: [`${base}/oauth/team/callback`, `${shortBase}/oauth/short/callback`],
        },
      ],
    });
    redis = await startRedis();
    nodeRed = await startNodeRed(flows(port, shortPort, idp.issuer), {
      env: {
        MCP_TEST_OIDC_SECRET: BRIDGE_CLIENT.secret,
        MCP_TEST_REDIS_URL: redis.url,
        NODE_RED_CREDENTIAL_SECRET: CREDENTIAL_SECRET,
        REDIS_URL: FOREIGN_REDIS_URL,
      },
    });
    await Promise.all([waitForEndpoint(urlA), waitForEndpoint(urlB), waitForEndpoint(`${shortBase}/short`)]);
    signIn = (username = 'alice', overrides = {}) => ({
      base,
      slug: 'team',
      clientId: CLIENT_A,
      redirectUri: REDIRECT,
      idp,
      username,
      resource: urlA,
      ...overrides,
    });
  });

  after(async () => {
    await nodeRed?.stop();
    await idp?.stop();
    await redis?.stop();
  });

  /** An authorization request for CLIENT_A at /a with a fresh S256 challenge; `params` override or drop (undefined). */
  const authorize = (params: Record<string, string | undefined> = {}) =>
    fetch(
      authorizeUrl(base, 'team', {
        response_type: 'code',
        client_id: CLIENT_A,
        redirect_uri: REDIRECT,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        state: 'client-state',
        resource: urlA,
        ...params,
      }),
      { redirect: 'manual' },
    );

  /** An error the bridge must show itself, with no redirect anywhere and no sign-in started. */
  async function assertShownHere(response: Response, status: number, error: string) {
    const page = await readProblemPage(response);
    assert.equal(page.status, status);
    assert.equal(page.error, error);
    return { error: page.error, error_description: page.description };
  }

  /** An error sent back to the client's redirect URI, with its state and our issuer (RFC 9207). */
  async function assertSentToClient(response: Response, error: string, state = 'client-state') {
    assert.equal(response.status, 302);
    await response.body?.cancel();
    const location = new URL(response.headers.get('location')!);
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
    assert.equal(location.searchParams.get('error'), error);
    assert.equal(location.searchParams.get('state'), state);
    assert.equal(location.searchParams.get('iss'), base);
    assert.equal(location.searchParams.get('code'), null, 'no code');
    return location;
  }

  it('1. refuses a client_id on a host that is not on the allow-list (400 invalid_client, no redirect)', async () => {
    const since = nodeRed.output().length;
    const body = await assertShownHere(await authorize({ client_id: 'https://not-allowed.example/cimd.json' }), 400, 'invalid_client');
    assert.match(body.error_description, /allow-list/);
    // Refused by name, before any DNS lookup or connection (the fetch itself cannot be observed here).
    await nodeRed.waitForOutput('client metadata refused (host_not_allowed): not-allowed.example', since);
  });

  it('1b. shows that refusal as a page in the browser\'s language, from the catalogs the editor uses', async () => {
    const ask = (acceptLanguage: string) =>
      fetch(authorizeUrl(base, 'team', { response_type: 'code', client_id: 'https://not-allowed.example/cimd.json', redirect_uri: REDIRECT, code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }), {
        redirect: 'manual',
        headers: { 'accept-language': acceptLanguage },
      });
    for (const [acceptLanguage, language] of [['de-DE,de;q=0.9,en;q=0.8', 'de'], ['ja', 'ja'], ['fr-FR, en-GB;q=0.5', 'en-US'], ['', 'en-US']] as const) {
      const page = await readProblemPage(await ask(acceptLanguage));
      const texts = catalogIn(language, 'mcp-auth').signInPage;
      assert.equal(page.status, 400, acceptLanguage);
      assert.equal(page.language, language, acceptLanguage);
      assert.equal(page.heading, texts.problems.clientRefused.heading);
      assert.ok(page.text.includes(texts.problems.clientRefused.message), `${language} explains what to do`);
      assert.ok(page.text.includes(texts.notSent));
      assert.ok(page.text.includes('https://not-allowed.example/cimd.json'), 'names the client');
      assert.equal(page.error, 'invalid_client');
    }
  });

  it('2. refuses an allow-listed client host that resolves to a loopback address (400 invalid_client)', async () => {
    const since = nodeRed.output().length;
    const body = await assertShownHere(await authorize({ client_id: 'https://localhost/cimd.json' }), 400, 'invalid_client');
    assert.match(body.error_description, /public address/);
    // The resolved addresses go to the server log only, never to the client.
    assert.doesNotMatch(body.error_description, /127\.0\.0\.1|::1/);
    await nodeRed.waitForOutput('client metadata refused (address_not_public)', since);
  });

  it('3. does not start endpoints whose mcp-auth has an invalid pinned document, and says why', async () => {
    // Oversized and mismatched fetched documents are covered by test/unit/client-fetch-metadata.test.ts:
    // a pinned document cannot mismatch (it is keyed by its own client_id) and nothing public serves one here.
    const reason = catalog('mcp-auth').errors.invalidPinnedClients as string;
    const logged = fill(catalog('mcp-flow-server').errors.invalidAuth, { reason });
    for (const [id, path, slug] of [['http-pinned', '/bad-http-pinned', 'bad-http'], ['no-redirects', '/bad-no-redirects', 'bad-redirects']]) {
      await nodeRed.waitForOutput(`[mcp-auth:auth-${id}] ${reason}`);
      await nodeRed.waitForOutput(`[mcp-flow-server:fs-${id}] ${logged}`);
      assert.equal((await postJsonRpc(`${base}${path}`, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status, 404, `${path} is not served`);
      assert.equal((await fetch(`${base}/.well-known/oauth-protected-resource${path}`)).status, 404);
      assert.equal((await fetch(`${base}/oauth/${slug}/authorize`)).status, 404);
    }
  });

  it('4. refuses a redirect_uri that is not in the client metadata document (400 invalid_request, no redirect)', async () => {
    await assertShownHere(await authorize({ redirect_uri: 'https://attacker.example/callback' }), 400, 'invalid_request');
    await assertShownHere(await authorize({ redirect_uri: 'http://127.0.0.1:49152/elsewhere' }), 400, 'invalid_request');
  });

  it('5a. sends invalid_request back to the client when code_challenge is missing', async () => {
    await assertSentToClient(await authorize({ code_challenge: undefined }), 'invalid_request');
  });

  it('5b. sends invalid_request back to the client for a 42-character code_challenge', async () => {
    await assertSentToClient(await authorize({ code_challenge: pkcePair().challenge.slice(0, 42) }), 'invalid_request');
  });

  it('5c. sends invalid_request back to the client for code_challenge_method=plain', async () => {
    const { verifier } = pkcePair();
    await assertSentToClient(await authorize({ code_challenge: verifier, code_challenge_method: 'plain' }), 'invalid_request');
  });

  it('6. refuses a wrong code_verifier (invalid_grant) and the code is spent afterwards', async () => {
    const signedIn = await rawSignIn(signIn());
    assert.ok(signedIn.code);
    const exchange = { ...signIn(), code: signedIn.code };
    const wrong = await exchangeCode({ ...exchange, verifier: pkcePair().verifier });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
    assert.equal(wrong.body.access_token, undefined);
    const right = await exchangeCode({ ...exchange, verifier: signedIn.verifier });
    assert.equal(right.status, 400);
    assert.equal(right.body.error, 'invalid_grant');
    assert.equal(right.body.access_token, undefined);
  });

  it('7. refuses a replayed code (invalid_grant) and revokes the token the first use got (OAuth 2.1 §4.1.3)', async () => {
    const signedIn = await rawSignIn(signIn());
    assert.ok(signedIn.code);
    const exchange = { ...signIn(), code: signedIn.code, verifier: signedIn.verifier };
    const first = await exchangeCode(exchange);
    assert.equal(first.status, 200);
    assert.ok(first.body.access_token);
    assert.equal((await callTool(urlA, first.body.access_token)).status, 200);
    const since = nodeRed.output().length;
    const replay = await exchangeCode(exchange);
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, 'invalid_grant');
    assert.equal(replay.body.access_token, undefined);
    assert.equal((await callTool(urlA, first.body.access_token)).status, 401, 'a code used twice leaves no token working');
    await nodeRed.waitForOutput(/"event":"oauth\.token","outcome":"refused","reason":"code_replay","subject":"alice","client":"client\.test"/, since);
  });

  it('8. refuses a code presented by another (pinned) client, and the code is spent', async () => {
    const signedIn = await rawSignIn(signIn());
    assert.ok(signedIn.code);
    const exchange = { ...signIn(), code: signedIn.code, verifier: signedIn.verifier };
    const stolen = await exchangeCode({ ...exchange, clientId: CLIENT_B });
    assert.equal(stolen.status, 400);
    assert.equal(stolen.body.error, 'invalid_grant');
    assert.equal(stolen.body.access_token, undefined);
    const owner = await exchangeCode(exchange);
    assert.equal(owner.body.error, 'invalid_grant');
  });

  it('9. refuses a callback without the sign-in cookie (400 invalid_request), and no code is issued', async () => {
    const begun = await beginRawSignIn(signIn());
    const toBridge = await idp.signIn(begun.providerUrl, 'alice');
    const providerTokenCalls = idp.requestCount('token');
    const cookieName = begun.cookie.split('=')[0]!;
    for (const cookie of [undefined, `${cookieName}=${randomBytes(32).toString('base64url')}`]) {
      const callback = await finishRawSignIn(toBridge, cookie);
      const body = (await callback.json()) as { error: string };
      assert.equal(callback.status, 400, `cookie ${cookie ? 'forged' : 'missing'}`);
      assert.equal(body.error, 'invalid_request');
      assert.equal(callback.headers.get('location'), null, 'no code goes anywhere');
    }
    assert.equal(idp.requestCount('token'), providerTokenCalls, 'the provider\'s code was never redeemed');
  });

  it('9b. keeps two sign-ins started in one browser apart (two tabs, or a client that retries)', async () => {
    const first = await beginRawSignIn(signIn());
    const second = await beginRawSignIn(signIn());
    // The browser's cookie jar: a cookie of the same name replaces the earlier one.
    const jar = new Map<string, string>();
    for (const pair of [first.cookie, second.cookie]) jar.set(pair.split('=')[0]!, pair);
    const cookies = [...jar.values()].join('; ');
    for (const begun of [first, second]) {
      const callback = await finishRawSignIn(await idp.signIn(begun.providerUrl, 'alice'), cookies);
      assert.equal(callback.status, 302, await callback.text());
      assert.ok(new URL(callback.headers.get('location')!).searchParams.get('code'), 'each sign-in reaches the client with a code');
    }
  });

  it('10. sends access_denied to the client for a user outside the endpoint\'s groups, and audits it', async () => {
    const since = nodeRed.output().length;
    const refused = await rawSignIn(signIn('bob', { state: 'bob-state' }));
    assert.equal(refused.code, null);
    assert.equal(refused.error, 'access_denied');
    assert.equal(refused.state, 'bob-state');
    assert.equal(refused.iss, base);
    await nodeRed.waitForOutput(/"event":"oauth\.sign_in","outcome":"refused","reason":"not_in_groups"[^\n]*"subject":"bob"/, since);
  });

  it('11a. sends invalid_target to the client for a resource that is not a protected endpoint', async () => {
    await assertSentToClient(await authorize({ resource: `${base}/not-an-endpoint` }), 'invalid_target');
    // Two endpoints share this configuration, so the resource cannot be left out either.
    await assertSentToClient(await authorize({ resource: undefined }), 'invalid_target');
  });

  it('11b. refuses a token request whose resource differs from the authorization request (400 invalid_target)', async () => {
    const signedIn = await rawSignIn(signIn());
    assert.ok(signedIn.code);
    const mismatch = await exchangeCode({ ...signIn(), code: signedIn.code, verifier: signedIn.verifier, resource: urlB });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.error, 'invalid_target');
    assert.equal(mismatch.body.access_token, undefined);
  });

  it('12. answers an expired token with 401 and error="invalid_token"', async () => {
    const shortUrl = `${shortBase}/short`;
    const options = signIn('alice', { base: shortBase, slug: 'short', resource: shortUrl });
    const signedIn = await rawSignIn(options);
    assert.ok(signedIn.code);
    const issued = await exchangeCode({ ...options, code: signedIn.code, verifier: signedIn.verifier });
    assert.equal(issued.status, 200);
    assert.equal(issued.body.expires_in, 1);
    await delay(1500);
    const since = nodeRed.output().length;
    const expired = await callTool(shortUrl, issued.body.access_token);
    assert.equal(expired.status, 401);
    assert.match(String(expired.headers['www-authenticate']), /error="invalid_token"/);
    assert.match(String(expired.headers['www-authenticate']), new RegExp(`resource_metadata="${shortBase}/\\.well-known/oauth-protected-resource/short"`));
    await nodeRed.waitForOutput(/"event":"mcp\.auth","reason":"invalid_token","endpoint":"\/short"/, since);
  });

  it('13. answers 403 to a token issued for another endpoint of the same configuration', async () => {
    const token = await rawAccessToken(signIn());
    const own = await callTool(urlA, token);
    assert.equal(own.status, 200);
    assert.deepEqual(toolResult(own), { subject: 'alice', endpoint: '/a' });
    const since = nodeRed.output().length;
    const other = await callTool(urlB, token);
    assert.equal(other.status, 403);
    assert.equal(other.headers['www-authenticate'], undefined, 'a 403 does not ask the client to sign in again');
    await nodeRed.waitForOutput(/"event":"mcp\.auth","reason":"wrong_resource","subject":"alice"[^\n]*"endpoint":"\/b"/, since);
  });

  it('15. does not start endpoints whose storage or auth names a non-MCP_ environment variable, and never logs its value', async () => {
    const redisError = fill(catalog('mcp-redis').errors.invalidEnvName, { name: 'REDIS_URL' });
    const storageReason = fill(catalog('mcp-auth').errors.invalidStorage, { reason: redisError });
    const secretError = fill(catalog('mcp-auth').errors.invalidEnvName, { name: 'NODE_RED_CREDENTIAL_SECRET' });
    const invalidAuth = catalog('mcp-flow-server').errors.invalidAuth as string;
    await nodeRed.waitForOutput(`[mcp-redis:foreign-store] ${redisError}`);
    await nodeRed.waitForOutput(`[mcp-auth:auth-foreign-store] ${storageReason}`);
    await nodeRed.waitForOutput(`[mcp-flow-server:fs-foreign-store] ${fill(invalidAuth, { reason: storageReason })}`);
    await nodeRed.waitForOutput(`[mcp-auth:auth-foreign-secret] ${secretError}`);
    await nodeRed.waitForOutput(`[mcp-flow-server:fs-foreign-secret] ${fill(invalidAuth, { reason: secretError })}`);
    for (const path of ['/bad-foreign-store', '/bad-foreign-secret']) {
      assert.equal((await postJsonRpc(`${base}${path}`, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status, 404, `${path} is not served`);
    }
    for (const slug of ['bad-store', 'bad-secret']) assert.equal((await fetch(`${base}/oauth/${slug}/authorize`)).status, 404);
    const output = nodeRed.output();
    assert.ok(!output.includes(CREDENTIAL_SECRET), 'NODE_RED_CREDENTIAL_SECRET leaked into the log');
    assert.ok(!output.includes(FOREIGN_REDIS_PASSWORD), 'REDIS_URL leaked into the log');
  });

  it('16a. refuses a token request body over 16 KiB with 413 invalid_request', async () => {
    const answer = await postToken(base, 'team', `grant_type=authorization_code&padding=${'x'.repeat(16 * 1024)}`);
    assert.equal(answer.status, 413);
    assert.equal(answer.body.error, 'invalid_request');
  });

  it('16b. refuses a JSON token request with 400 invalid_request', async () => {
    const answer = await postToken(base, 'team', JSON.stringify({ grant_type: 'authorization_code', code: 'x' }), 'application/json');
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_request');
  });

  it('16c. refuses an unsupported grant_type with unsupported_grant_type', async () => {
    for (const grant of ['client_credentials', 'password', 'refresh_token']) {
      const answer = await postToken(base, 'team', new URLSearchParams({ grant_type: grant, client_id: CLIENT_A }).toString());
      assert.equal(answer.status, 400, grant);
      assert.equal(answer.body.error, 'unsupported_grant_type', grant);
    }
  });

  it('16d. sends a successful token response with Cache-Control: no-store', async () => {
    const signedIn = await rawSignIn(signIn());
    assert.ok(signedIn.code);
    const answer = await exchangeCode({ ...signIn(), code: signedIn.code, verifier: signedIn.verifier });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    assert.equal(answer.body.token_type, 'Bearer');
    assert.ok(answer.body.access_token);
  });

  it('17a. serves identical authorization server metadata at both well-known paths', async () => {
    const oauth = await getJson(`${base}/.well-known/oauth-authorization-server`);
    const openid = await getJson(`${base}/.well-known/openid-configuration`);
    assert.equal(oauth.status, 200);
    assert.equal(openid.status, 200);
    assert.deepEqual(openid.body, oauth.body);
    const metadata = oauth.body;
    assert.equal(metadata.issuer, base);
    assert.equal(metadata.authorization_endpoint, `${base}/oauth/team/authorize`);
    assert.equal(metadata.token_endpoint, `${base}/oauth/team/token`);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    assert.equal(metadata.client_id_metadata_document_supported, true);
    assert.equal(metadata.authorization_response_iss_parameter_supported, true);
    assert.deepEqual(metadata.token_endpoint_auth_methods_supported, ['none']);
  });

  it('17b. serves protected-resource metadata per endpoint and at the root', async () => {
    for (const path of ['/a', '/b']) {
      const prm = await getJson(`${base}/.well-known/oauth-protected-resource${path}`);
      assert.equal(prm.status, 200);
      assert.equal(prm.body.resource, `${base}${path}`);
      assert.deepEqual(prm.body.authorization_servers, [base]);
    }
    const root = await getJson(`${base}/.well-known/oauth-protected-resource`);
    assert.equal(root.status, 200);
    assert.deepEqual(root.body.authorization_servers, [base]);
  });

  it('17c. sends no CORS headers on any OAuth or MCP route, whatever the Origin', async () => {
    const origin = { origin: 'https://web-page.example' };
    const token = await rawAccessToken(signIn());
    const responses: Array<[string, Response]> = [
      ['AS metadata', await fetch(`${base}/.well-known/oauth-authorization-server`, { headers: origin })],
      ['OIDC alias', await fetch(`${base}/.well-known/openid-configuration`, { headers: origin })],
      ['endpoint PRM', await fetch(`${base}/.well-known/oauth-protected-resource/a`, { headers: origin })],
      ['root PRM', await fetch(`${base}/.well-known/oauth-protected-resource`, { headers: origin })],
      ['authorize', await fetch(authorizeUrl(base, 'team', { client_id: CLIENT_A }), { headers: origin, redirect: 'manual' })],
      ['token', await fetch(`${base}/oauth/team/token`, { method: 'POST', headers: { ...origin, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code' })],
      ['token preflight', await fetch(`${base}/oauth/team/token`, { method: 'OPTIONS', headers: { ...origin, 'access-control-request-method': 'POST' } })],
      ['MCP preflight', await fetch(urlA, { method: 'OPTIONS', headers: { ...origin, 'access-control-request-method': 'POST' } })],
      [
        'MCP call',
        await fetch(urlA, {
          method: 'POST',
          headers: { ...origin, authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }),
      ],
    ];
    for (const [name, response] of responses) {
      await response.body?.cancel();
      const cors = [...response.headers.keys()].filter((header) => header.startsWith('access-control-'));
      assert.deepEqual(cors, [], `${name} (HTTP ${response.status}) sent ${cors.join(', ')}`);
    }
  });

  it('14a. answers 503 while Redis hangs during a code exchange, and the same code works once Redis answers', async () => {
    const admin = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await admin.connect();
    try {
      // Two ways Redis hangs: the whole server (SIGSTOP), or only writes (CLIENT PAUSE WRITE, while
      // reads still answer). Either way the bridge's command gets no answer, and runs when Redis resumes.
      const hangs = [
        { name: 'server frozen', start: async () => redis.freeze(), end: async () => redis.thaw() },
        { name: 'writes paused', start: () => admin.call('CLIENT', 'PAUSE', '60000', 'WRITE'), end: () => admin.call('CLIENT', 'UNPAUSE') },
      ];
      for (const hang of hangs) {
        const signedIn = await rawSignIn(signIn());
        assert.ok(signedIn.code);
        const exchange = { ...signIn(), code: signedIn.code, verifier: signedIn.verifier };
        await hang.start();
        let during;
        try {
          during = await exchangeCode(exchange);
        } finally {
          await hang.end();
        }
        assert.equal(during.status, 503, `${hang.name}: ${JSON.stringify(during.body)}`);
        assert.equal(during.body.error, 'temporarily_unavailable');
        assert.equal(during.body.access_token, undefined);
        // The client retries with the same code: it was not used up by the answerless attempt.
        const retry = await exchangeCode(exchange);
        assert.equal(retry.status, 200, `${hang.name}: ${JSON.stringify(retry.body)}`);
        assert.equal((await callTool(urlA, retry.body.access_token)).status, 200);
        assert.equal((await exchangeCode(exchange)).body.error, 'invalid_grant', `${hang.name}: and then it is spent`);
      }
    } finally {
      admin.disconnect();
    }
  });

  // Last: it stops Redis, and a restarted Redis has lost every sign-in and token.
  it('14. answers 503 temporarily_unavailable while Redis is down and recovers without restarting Node-RED', async () => {
    const token = await rawAccessToken(signIn());
    const unexchanged = await rawSignIn(signIn());
    assert.ok(unexchanged.code);
    const begun = await beginRawSignIn(signIn());
    const toBridge = await idp.signIn(begun.providerUrl, 'alice');

    await redis.stop();

    const callback = await finishRawSignIn(toBridge, begun.cookie);
    const callbackBody = (await callback.json()) as { error: string };
    assert.equal(callback.status, 503);
    assert.equal(callbackBody.error, 'temporarily_unavailable');
    assert.equal(callback.headers.get('location'), null, 'no code while storage is down');

    const exchange = await exchangeCode({ ...signIn(), code: unexchanged.code, verifier: unexchanged.verifier });
    assert.equal(exchange.status, 503);
    assert.equal(exchange.body.error, 'temporarily_unavailable');
    assert.equal(exchange.body.access_token, undefined);

    const call = await callTool(urlA, token);
    assert.equal(call.status, 503);

    // A sign-in started during the outage goes back to the client, which may retry.
    await assertSentToClient(await authorize(), 'temporarily_unavailable');

    const since = nodeRed.output().length;
    const stores = (nodeRed.output().match(/redis storage ready/g) ?? []).length;
    await redis.restart();
    // Every store reconnects by itself and says so; then /authorize stores a sign-in again at once.
    await nodeRed.waitForMatches(/redis storage reconnected/, stores, since);
    const probe = await authorize();
    await probe.body?.cancel();
    assert.equal(probe.status, 302);
    assert.ok(probe.headers.get('location')!.startsWith(idp.issuer), 'the sign-in went on to the provider');

    // The restarted Redis is empty (no persistence): the old token is gone, a new sign-in works.
    assert.equal((await callTool(urlA, token)).status, 401);
    const fresh = await rawAccessToken(signIn());
    const recovered = await callTool(urlA, fresh);
    assert.equal(recovered.status, 200);
    assert.deepEqual(toolResult(recovered), { subject: 'alice', endpoint: '/a' });
  });
});
