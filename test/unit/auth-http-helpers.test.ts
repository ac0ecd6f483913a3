// sendOAuthFailure, the authorization redirects and the browser-binding cookie, each answered by a
// real http.Server on loopback so the headers are what Node really writes on the wire.
import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import {
  invalidClient,
  invalidGrant,
  invalidRequest,
  OAuthFailure,
  sendOAuthFailure,
  temporarilyUnavailable,
} from '../../lib/auth/oauth-error.js';
import { clearCookie, cookieName, readCookie, setCookie } from '../../lib/http/cookies.js';
import { redirectError, redirectWith } from '../../lib/auth/bridge/redirects.js';
import { singleParams } from '../../lib/http/read-form.js';

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Serves one request with `handler` on a fresh loopback server and returns what the client saw. */
async function answer(handler: (req: IncomingMessage, res: ServerResponse) => void, requestHeaders: Record<string, string> = {}): Promise<Answer> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<Answer>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/', method: 'GET', agent: false, headers: requestHeaders }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function fakeRequest(cookie: string | undefined): IncomingMessage {
  return { headers: cookie === undefined ? {} : { cookie } } as unknown as IncomingMessage;
}

describe('sendOAuthFailure', () => {
  it('writes the status, {error, error_description} as JSON and no-store', async () => {
    const res = await answer((_req, res) => sendOAuthFailure(res, new OAuthFailure(400, 'invalid_request', 'code_challenge is required')));
    assert.equal(res.status, 400);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.deepEqual(JSON.parse(res.body), { error: 'invalid_request', error_description: 'code_challenge is required' });
    assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body));
  });

  it('adds the failure headers', async () => {
    const res = await answer((_req, res) =>
      sendOAuthFailure(res, new OAuthFailure(401, 'invalid_client', 'unknown client', { 'www-authenticate': 'Bearer error="invalid_client"' })),
    );
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer error="invalid_client"');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.deepEqual(JSON.parse(res.body), { error: 'invalid_client', error_description: 'unknown client' });
  });

  it('answers temporarily_unavailable with 503 and Retry-After, and nothing else in the body', async () => {
    const res = await answer((_req, res) => sendOAuthFailure(res, temporarilyUnavailable()));
    assert.equal(res.status, 503);
    assert.equal(res.headers['retry-after'], '5');
    const body = JSON.parse(res.body);
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
    assert.equal(body.error, 'temporarily_unavailable');
  });

  it('never puts the audit reason or a stack in the body', async () => {
    const failure = invalidGrant('The authorization code is invalid or expired.', 'verifier_mismatch');
    assert.equal(failure.reason, 'verifier_mismatch');
    const res = await answer((_req, res) => sendOAuthFailure(res, failure));
    assert.equal(res.status, 400);
    assert.ok(!res.body.includes('verifier_mismatch'));
    assert.ok(!res.body.includes('at '), res.body);
    assert.deepEqual(JSON.parse(res.body), { error: 'invalid_grant', error_description: 'The authorization code is invalid or expired.' });
  });

  it('has constructors with the RFC 6749 statuses', () => {
    assert.deepEqual([invalidRequest('x').status, invalidRequest('x').error], [400, 'invalid_request']);
    assert.deepEqual([invalidGrant('x').status, invalidGrant('x').error], [400, 'invalid_grant']);
    assert.deepEqual([invalidClient('x').status, invalidClient('x').error], [401, 'invalid_client']);
    assert.ok(invalidRequest('x') instanceof Error);
  });
});

describe('redirectWith / redirectError', () => {
  it('redirects with 302 and no-store, appending to a query the target already has', async () => {
    const res = await answer((_req, res) => redirectWith(res, 'https://client.example.com/cb?keep=1&x=y', { code: 'abc', state: 's t&u' }));
    assert.equal(res.status, 302);
    assert.equal(res.headers['cache-control'], 'no-store');
    const location = new URL(String(res.headers.location));
    assert.equal(location.origin + location.pathname, 'https://client.example.com/cb');
    assert.deepEqual([...location.searchParams], [['keep', '1'], ['x', 'y'], ['code', 'abc'], ['state', 's t&u']]);
  });

  it('leaves out undefined parameters', async () => {
    const res = await answer((_req, res) => redirectWith(res, 'http://127.0.0.1:3000/callback', { code: 'abc', state: undefined }));
    const location = new URL(String(res.headers.location));
    assert.deepEqual([...location.searchParams], [['code', 'abc']]);
  });

  it('sends an authorization error with error, error_description, state and iss (RFC 9207)', async () => {
    const res = await answer((_req, res) =>
      redirectError(res, 'https://client.example.com/cb?keep=1', 'https://mcp.example.com', 'access_denied', 'not in an allowed group', 'st-123'),
    );
    assert.equal(res.status, 302);
    const location = new URL(String(res.headers.location));
    assert.equal(location.searchParams.get('keep'), '1');
    assert.equal(location.searchParams.get('error'), 'access_denied');
    assert.equal(location.searchParams.get('error_description'), 'not in an allowed group');
    assert.equal(location.searchParams.get('state'), 'st-123');
    assert.equal(location.searchParams.get('iss'), 'https://mcp.example.com');
  });

  it('omits state when the client sent none, but keeps iss', async () => {
    const res = await answer((_req, res) => redirectError(res, 'https://client.example.com/cb', 'https://mcp.example.com', 'invalid_request', 'x', undefined));
    const location = new URL(String(res.headers.location));
    assert.equal(location.searchParams.has('state'), false);
    assert.equal(location.searchParams.get('iss'), 'https://mcp.example.com');
  });
});

describe('singleParams', () => {
  it('returns every parameter once', () => {
    const params = singleParams(new URLSearchParams('response_type=code&client_id=https%3A%2F%2Fc.example%2Fm.json&state='));
    assert.ok(params instanceof Map);
    assert.equal(params.get('response_type'), 'code');
    assert.equal(params.get('client_id'), 'https://c.example/m.json');
    assert.equal(params.get('state'), '');
    assert.equal(params.size, 3);
  });

  it("answers 'repeated' when any parameter appears twice, even with the same value", () => {
    assert.equal(singleParams(new URLSearchParams('a=1&b=2&a=3')), 'repeated');
    assert.equal(singleParams(new URLSearchParams('a=1&a=1')), 'repeated');
    assert.equal(singleParams(new URLSearchParams('state=&state=')), 'repeated');
  });

  it('returns an empty map for no parameters', () => {
    const params = singleParams(new URLSearchParams(''));
    assert.ok(params instanceof Map);
    assert.equal(params.size, 0);
  });
});

describe('bridge cookies (sign-in binding, consent)', () => {
  const LAX = (secure: boolean) => ({ sameSite: 'Lax', secure }) as const;

  it('is __Host- prefixed only over HTTPS, with the slug made cookie-safe and a tag per sign-in', () => {
    assert.match(cookieName('signin', 'team-login', 'state-1', true), /^__Host-mcp_signin_team_login_[0-9a-f]{16}$/);
    assert.match(cookieName('signin', 'team-login', 'state-1', false), /^mcp_signin_team_login_[0-9a-f]{16}$/);
    assert.equal(cookieName('signin', 'team', 'state-1', false), cookieName('signin', 'team', 'state-1', false));
    // Two sign-ins (or a sign-in and a consent) in one browser never share a cookie.
    assert.notEqual(cookieName('signin', 'team', 'state-1', false), cookieName('signin', 'team', 'state-2', false));
    assert.notEqual(cookieName('signin', 'team', 'x', false).slice(-16), cookieName('consent', 'team', 'x', false).slice(-16));
  });

  it('is set HttpOnly, SameSite=Lax, Path=/, Secure over HTTPS, with Max-Age', async () => {
    const name = cookieName('signin', 'team', 'state', true);
    const res = await answer((_req, res) => {
      setCookie(res, name, 'binding-value', LAX(true), 300);
      res.end();
    });
    const cookies = res.headers['set-cookie'] ?? [];
    assert.equal(cookies.length, 1);
    const [pair, ...attributes] = cookies[0]!.split('; ');
    assert.equal(pair, `${name}=binding-value`);
    assert.deepEqual(new Set(attributes), new Set(['Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=300', 'Secure']));
    // __Host- cookies must not name a Domain (RFC 6265bis §4.1.3.2).
    assert.ok(!attributes.some((attribute) => /^domain=/i.test(attribute)));
  });

  it('is not Secure over plain http', async () => {
    const res = await answer((_req, res) => {
      setCookie(res, cookieName('signin', 'team', 'state', false), 'v', LAX(false), 120);
      res.end();
    });
    const attributes = (res.headers['set-cookie'] ?? [])[0]!.split('; ');
    assert.equal(attributes[0], `${cookieName('signin', 'team', 'state', false)}=v`);
    assert.ok(!attributes.includes('Secure'));
    for (const attribute of ['HttpOnly', 'SameSite=Lax', 'Path=/', 'Max-Age=120']) assert.ok(attributes.includes(attribute), attribute);
  });

  it('clears with an empty value and Max-Age=0, with the same attributes', async () => {
    const res = await answer((_req, res) => {
      clearCookie(res, cookieName('signin', 'team', 'state', true), LAX(true));
      res.end();
    });
    const attributes = (res.headers['set-cookie'] ?? [])[0]!.split('; ');
    assert.equal(attributes[0], `${cookieName('signin', 'team', 'state', true)}=`);
    for (const attribute of ['Max-Age=0', 'Secure', 'Path=/', 'HttpOnly']) assert.ok(attributes.includes(attribute), attribute);
  });

  it('adds to Set-Cookie headers already there instead of replacing them', async () => {
    const res = await answer((_req, res) => {
      res.setHeader('set-cookie', 'other=1; Path=/');
      setCookie(res, 'mcp_signin_a', 'one', LAX(false), 60);
      clearCookie(res, 'mcp_signin_b', LAX(false));
      res.end();
    });
    const cookies = res.headers['set-cookie'] ?? [];
    assert.equal(cookies.length, 3);
    assert.equal(cookies[0], 'other=1; Path=/');
    assert.match(cookies[1]!, /^mcp_signin_a=one; /);
    assert.match(cookies[2]!, /^mcp_signin_b=; .*Max-Age=0/);
  });

  it('reads its cookie among several, by exact name', () => {
    const name = cookieName('signin', 'team', 'state', true);
    const header = `theme=dark; ${name}=abc123; __Host-mcp_signin_team_x=wrong; other=1`;
    assert.equal(readCookie(fakeRequest(header), name), 'abc123');
    assert.equal(readCookie(fakeRequest(`${name}=first`), name), 'first');
    assert.equal(readCookie(fakeRequest(`a=1;${name}=tight;b=2`), name), 'tight');
    // A value may contain '=' (base64 padding).
    assert.equal(readCookie(fakeRequest(`${name}=abc==; x=y`), name), 'abc==');
  });

  it('reads nothing when the cookie is absent, empty, or only a longer name matches', () => {
    const name = cookieName('signin', 'team', 'state', false);
    assert.equal(readCookie(fakeRequest(undefined), name), undefined);
    assert.equal(readCookie(fakeRequest(''), name), undefined);
    assert.equal(readCookie(fakeRequest('theme=dark; other=1'), name), undefined);
    assert.equal(readCookie(fakeRequest(`${name}=; other=1`), name), undefined);
    assert.equal(readCookie(fakeRequest(`x${name}=abc; ${name}x=def`), name), undefined);
    // Without the prefix, the __Host- cookie is a different cookie.
    assert.equal(readCookie(fakeRequest(`__Host-${name}=abc`), name), undefined);
  });

  it('round-trips a value set by setCookie through a real request', async () => {
    const name = cookieName('signin', 'round-trip', 'state', false);
    const set = await answer((_req, res) => {
      setCookie(res, name, 'v4lue_-', LAX(false), 60);
      res.end();
    });
    const cookiePair = (set.headers['set-cookie'] ?? [])[0]!.split('; ')[0]!;
    let seen: string | undefined;
    await answer(
      (req, res) => {
        seen = readCookie(req, name);
        res.end();
      },
      { cookie: `a=b; ${cookiePair}` },
    );
    assert.equal(seen, 'v4lue_-');
  });
});
