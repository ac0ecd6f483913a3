// The consent module end to end on a real loopback http.Server: prompt() at GET /start, complete() at
// POST /oauth/<slug>/consent, and a tiny client that keeps what a browser would (hidden fields, cookie).
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { silentLogger, type Logger } from '../../lib/core/logger.js';
import { createConsent, type Consent } from '../../lib/auth/consent/consent.js';
import { ConsentRefused, sendConsentRefusal, sendConsentUnavailable } from '../../lib/auth/consent/consent-refused.js';
import { consentPath, type ConsentPolicy, type ConsentRequest } from '../../lib/auth/consent/consent-types.js';
import { isStorageUnavailable } from '../../lib/storage/store.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { exchange, serveOnLoopback, type HttpAnswer } from '../support/loopback-http.js';

const SLUG = 'team-a';
const CONSENT_PATH = consentPath(SLUG);

type Answer = HttpAnswer;

interface Pending {
  readonly code: string;
  readonly clientState: string;
}

function sampleRequest(overrides: Partial<ConsentRequest> = {}): ConsentRequest {
  return {
    clientId: 'https://client.example.com/oauth/metadata.json',
    clientName: 'Example Client',
    registeredClient: false,
    redirectUri: 'https://client.example.com/callback',
    endpointPath: '/mcp/tools',
    endpointName: 'Team tools',
    scope: ['mcp:tools'],
    subject: 'user-123',
    email: 'ada@example.com',
    ...overrides,
  };
}

function fakeClock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_700_000_000_000;
  return { now: () => time, advance: (ms) => (time += ms) };
}

interface Harness {
  readonly consent: Consent<Pending>;
  readonly store: MemoryStore;
  readonly clock: ReturnType<typeof fakeClock>;
  readonly port: number;
  /** The next GET /start renders this request and pending payload. */
  next(request: ConsentRequest, pending: Pending): void;
  close(): Promise<void>;
}

interface HarnessOptions {
  readonly policy?: Partial<ConsentPolicy>;
  readonly secureCookies?: boolean;
  readonly logger?: Logger;
}

async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = fakeClock();
  const store = new MemoryStore({ now: clock.now });
  const consent = createConsent<Pending>({
    store,
    namespace: 'ns-test',
    slug: SLUG,
    issuer: 'https://mcp.example.org',
    policy: { rememberSeconds: 30 * 86_400, trustedClientIds: new Set(), ...options.policy },
    secureCookies: options.secureCookies ?? false,
    logger: options.logger ?? silentLogger,
    now: clock.now,
  });
  let upcoming: { request: ConsentRequest; pending: Pending } = { request: sampleRequest(), pending: { code: 'c', clientState: 's' } };

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      if (req.url === '/start') return await consent.prompt(res, upcoming.request, upcoming.pending);
      if (req.url === CONSENT_PATH) {
        const outcome = await consent.complete(req, res);
        const text = JSON.stringify(outcome);
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(text);
      }
      res.writeHead(404).end();
    } catch (error) {
      if (error instanceof ConsentRefused) return sendConsentRefusal(res, error);
      if (isStorageUnavailable(error)) return sendConsentUnavailable(res);
      res.writeHead(500).end(String(error));
    }
  };
  const server = await serveOnLoopback((req, res) => void handler(req, res));
  return {
    consent,
    store,
    clock,
    port: server.port,
    next: (request, pending) => (upcoming = { request, pending }),
    close: async () => {
      await server.close();
      await store.close();
    },
  };
}

/** Runs `use` on a harness of its own, for a case that needs other settings than its suite's, and closes it after. */
async function withHarness(options: HarnessOptions, use: (harness: Harness) => Promise<void>): Promise<void> {
  const harness = await startHarness(options);
  try {
    await use(harness);
  } finally {
    await harness.close();
  }
}

async function send(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
  return exchange(port, method, path, headers, options.body);
}

/** What a browser keeps from the consent page: the hidden fields and the cookie pair. */
interface ShownPage {
  readonly answer: Answer;
  readonly consent: string;
  readonly csrf: string;
  /** `name=value`, as the browser would send it back. */
  readonly cookie: string;
  readonly cookieName: string;
  readonly cookieValue: string;
  readonly setCookie: string;
}

async function showPage(harness: Harness, request: ConsentRequest, pending: Pending): Promise<ShownPage> {
  harness.next(request, pending);
  const answer = await send(harness.port, 'GET', '/start');
  const consent = hiddenField(answer.body, 'consent');
  const csrf = hiddenField(answer.body, 'csrf');
  const setCookie = String(answer.headers['set-cookie']?.[0] ?? '');
  const cookie = setCookie.split(';')[0] ?? '';
  const [cookieName = '', cookieValue = ''] = cookie.split('=');
  return { answer, consent, csrf, cookie, cookieName, cookieValue, setCookie };
}

function hiddenField(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  if (!match) throw new Error(`hidden field ${name} not on the page`);
  return match[1]!;
}

function answerForm(port: number, fields: Record<string, string>, cookie: string | undefined, headers: Record<string, string> = {}): Promise<Answer> {
  return send(port, 'POST', CONSENT_PATH, {
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

const PENDING: Pending = { code: 'issued-code-1', clientState: 'client-state-1' };
const EXPECTED_CSP_PREFIX = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'";

function approveFields(page: ShownPage, decision = 'approve'): Record<string, string> {
  return { consent: page.consent, csrf: page.csrf, decision };
}

describe('consent page', () => {
  let harness: Harness;
  before(async () => (harness = await startHarness()));
  after(async () => harness.close());

  it('shows client, redirect host, endpoint, scopes and account, all escaped', async () => {
    const page = await showPage(
      harness,
      sampleRequest({
        clientName: '<script>alert("x")</script> & \'Co\'',
        endpointName: 'Tools <b>bold</b>',
        scope: ['mcp:tools', '<img src=x onerror=alert(1)>'],
        email: '"ada"<ada@example.com>',
      }),
      PENDING,
    );
    const html = page.answer.body;
    assert.equal(page.answer.status, 200);
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /<img/i);
    assert.doesNotMatch(html, /<b>/);
    assert.match(html, /&#60;script&#62;alert\(&#34;x&#34;\)&#60;\/script&#62; &#38; &#39;Co&#39;/);
    assert.match(html, /Tools &#60;b&#62;bold&#60;\/b&#62;/);
    assert.match(html, /<code>client\.example\.com<\/code>/, 'the redirect host');
    assert.match(html, /<code>\/mcp\/tools<\/code>/, 'the endpoint path');
    assert.match(html, /<li><code>mcp:tools<\/code><\/li>/);
    assert.match(html, /&#60;img src=x onerror=alert\(1\)&#62;/);
    assert.match(html, /&#34;ada&#34;&#60;ada@example\.com&#62;/);
    assert.match(html, /Described by https:\/\/client\.example\.com\/oauth\/metadata\.json/);
    assert.match(html, /<html lang="en">/);
    assert.match(html, /<form method="post" action="\/oauth\/team-a\/consent" aria-label="[^"]+">/);
    assert.match(html, /<button type="submit" name="decision" value="approve"[^>]*>Approve<\/button>/);
    assert.match(html, /<button type="submit" name="decision" value="deny"[^>]*>Deny<\/button>/);
    assert.ok(html.indexOf('value="deny"') < html.indexOf('value="approve"'), 'Deny comes first, so Enter does not approve');
    assert.match(html, /remembered for 30 days/);
  });

  it('falls back to the subject when there is no email, and to the client host when there is no name', async () => {
    const { clientName: _name, email: _email, ...rest } = sampleRequest();
    const html = (await showPage(harness, rest, PENDING)).answer.body;
    assert.match(html, /Allow <span class="name">client\.example\.com<\/span>/);
    assert.match(html, /<dd>user-123<\/dd>/);
  });

  it('cuts long names and removes direction overrides and control characters', async () => {
    const long = 'A'.repeat(500);
    const html = (await showPage(harness, sampleRequest({ clientName: `${long}` }), PENDING)).answer.body;
    assert.ok(!html.includes('A'.repeat(81)));
    assert.ok(html.includes(`${'A'.repeat(79)}…`));
    const spoof = (await showPage(harness, sampleRequest({ clientName: 'Good\u202eevil\u0000\n name' }), PENDING)).answer.body;
    assert.ok(spoof.includes('Good evil name'));
    assert.ok(!spoof.includes('\u202e'));
  });

  it('sends the protective headers and a Strict, HttpOnly cookie for 300 s', async () => {
    const page = await showPage(harness, sampleRequest(), PENDING);
    const headers = page.answer.headers;
    assert.equal(headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(
      headers['content-security-policy'],
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https://client.example.com; frame-ancestors 'none'; base-uri 'none'",
    );
    assert.equal(headers['x-frame-options'], 'DENY');
    assert.equal(headers['cache-control'], 'no-store');
    assert.equal(headers['referrer-policy'], 'no-referrer');
    assert.equal(headers['x-content-type-options'], 'nosniff');
    assert.equal(Number(headers['content-length']), Buffer.byteLength(page.answer.body));
    assert.match(page.cookieName, /^mcp_consent_team_a_[A-Za-z0-9_-]{16}$/);
    assert.match(page.cookieValue, /^[A-Za-z0-9_-]{43}$/);
    const attributes = page.setCookie.split('; ').slice(1);
    assert.deepEqual(attributes, ['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=300']);
    assert.notEqual(page.cookieValue, page.csrf, 'the cookie and the form token are different secrets');
  });

  it('lets the form answer redirect to a loopback client, and says it is this computer', async () => {
    const page = await showPage(harness, sampleRequest({ redirectUri: 'http://127.0.0.1:53682/callback' }), PENDING);
    assert.match(String(page.answer.headers['content-security-policy']), /form-action 'self' http:\/\/127\.0\.0\.1:53682;/);
    assert.match(page.answer.body, /<code>127\.0\.0\.1:53682 \(this computer\)<\/code>/);
    const app = await showPage(harness, sampleRequest({ redirectUri: 'cursor://anysphere.cursor-retrieval/oauth/callback' }), PENDING);
    assert.match(String(app.answer.headers['content-security-policy']), /form-action 'self' cursor:;/);
  });

  it('warns that a registered client\'s name is unverified and that it will ask again', async () => {
    const html = (await showPage(harness, sampleRequest({ registeredClient: true, clientId: 'reg-abc' }), PENDING)).answer.body;
    assert.match(html, /class="warning" role="note"/);
    assert.match(html, /Registered itself with this server \(name not verified\)/);
    assert.match(html, /asked again the next time/);
    assert.doesNotMatch(html, /Described by/);
  });
});

describe('consent page over HTTPS', () => {
  it('uses a __Host- cookie with Secure', async () => {
    await withHarness({ secureCookies: true }, async (harness) => {
      const page = await showPage(harness, sampleRequest(), PENDING);
      assert.match(page.cookieName, /^__Host-mcp_consent_team_a_/);
      assert.deepEqual(page.setCookie.split('; ').slice(1), ['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=300', 'Secure']);
      const answer = await answerForm(harness.port, approveFields(page), page.cookie);
      assert.equal(answer.status, 200);
      assert.equal(JSON.parse(answer.body).decision, 'approve');
    });
  });
});

describe('consent answer', () => {
  let harness: Harness;
  before(async () => (harness = await startHarness()));
  after(async () => harness.close());

  it('approve returns the decision, the pending payload and the request, and clears the cookie', async () => {
    const request = sampleRequest();
    const page = await showPage(harness, request, PENDING);
    const answer = await answerForm(harness.port, approveFields(page), page.cookie);
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), { decision: 'approve', pending: PENDING, request });
    assert.deepEqual(answer.headers['set-cookie'], [`${page.cookieName}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`]);
  });

  it('deny returns deny with the pending payload', async () => {
    const page = await showPage(harness, sampleRequest(), PENDING);
    const answer = await answerForm(harness.port, approveFields(page, 'deny'), page.cookie);
    assert.equal(answer.status, 200);
    const outcome = JSON.parse(answer.body);
    assert.equal(outcome.decision, 'deny');
    assert.deepEqual(outcome.pending, PENDING);
  });

  it('refuses a replayed answer: a consent is single use', async () => {
    const page = await showPage(harness, sampleRequest(), PENDING);
    assert.equal((await answerForm(harness.port, approveFields(page), page.cookie)).status, 200);
    const replay = await answerForm(harness.port, approveFields(page), page.cookie);
    assert.equal(replay.status, 400);
    assert.match(replay.body, /unknown, expired or already answered/);
    const denyReplay = await answerForm(harness.port, approveFields(page, 'deny'), page.cookie);
    assert.equal(denyReplay.status, 400);
  });

  it('refuses concurrent answers but one', async () => {
    const page = await showPage(harness, sampleRequest(), PENDING);
    const answers = await Promise.all(Array.from({ length: 5 }, () => answerForm(harness.port, approveFields(page), page.cookie)));
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 400, 400, 400, 400]);
  });

  it('refuses an answer without the cookie, and leaves the consent for the real browser', async () => {
    const page = await showPage(harness, sampleRequest(), PENDING);
    const forged = await answerForm(harness.port, approveFields(page), undefined);
    assert.equal(forged.status, 400);
    assert.match(forged.body, /did not come from the browser/);
    assert.equal(forged.headers['set-cookie'], undefined);
    const real = await answerForm(harness.port, approveFields(page), page.cookie);
    assert.equal(real.status, 200);
  });

  it('refuses a wrong CSRF token, and the consent is spent', async () => {
    const page = await showPage(harness, sampleRequest(), PENDING);
    const wrong = await answerForm(harness.port, { ...approveFields(page), csrf: 'x'.repeat(43) }, page.cookie);
    assert.equal(wrong.status, 400);
    assert.match(wrong.body, /could not be verified/);
    const after = await answerForm(harness.port, approveFields(page), page.cookie);
    assert.equal(after.status, 400);
  });

  it('refuses another consent\'s cookie, whether under its own name or this one\'s', async () => {
    const mine = await showPage(harness, sampleRequest(), PENDING);
    const other = await showPage(harness, sampleRequest(), { code: 'other', clientState: 'other' });
    assert.notEqual(mine.cookieName, other.cookieName);
    const otherCookie = await answerForm(harness.port, approveFields(mine), other.cookie);
    assert.equal(otherCookie.status, 400);
    assert.match(otherCookie.body, /did not come from the browser/);
    const transplanted = await answerForm(harness.port, approveFields(mine), `${mine.cookieName}=${other.cookieValue}`);
    assert.equal(transplanted.status, 400);
    assert.match(transplanted.body, /could not be verified/);
    // The other tab is unaffected.
    assert.equal((await answerForm(harness.port, approveFields(other), other.cookie)).status, 200);
  });

  it('refuses the other consent\'s CSRF token', async () => {
    const mine = await showPage(harness, sampleRequest(), PENDING);
    const other = await showPage(harness, sampleRequest(), PENDING);
    const answer = await answerForm(harness.port, { ...approveFields(mine), csrf: other.csrf }, mine.cookie);
    assert.equal(answer.status, 400);
  });

  it('refuses an expired consent', async () => {
    const page = await showPage(harness, sampleRequest(), PENDING);
    harness.clock.advance(300_000);
    const answer = await answerForm(harness.port, approveFields(page), page.cookie);
    assert.equal(answer.status, 400);
    assert.match(answer.body, /expired/);
  });

  it('refuses cross-site and sibling-site submissions by fetch metadata', async () => {
    const page = await showPage(harness, sampleRequest(), PENDING);
    for (const site of ['cross-site', 'same-site']) {
      const answer = await answerForm(harness.port, approveFields(page), page.cookie, { 'sec-fetch-site': site });
      assert.equal(answer.status, 400, site);
    }
    const sameOrigin = await answerForm(harness.port, approveFields(page), page.cookie, { 'sec-fetch-site': 'same-origin' });
    assert.equal(sameOrigin.status, 200);
  });

  it('refuses malformed answers before touching the consent', async () => {
    const page = await showPage(harness, sampleRequest(), PENDING);
    const get = await send(harness.port, 'GET', CONSENT_PATH, { headers: { cookie: page.cookie } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
    const json = await send(harness.port, 'POST', CONSENT_PATH, {
      headers: { 'content-type': 'application/json', cookie: page.cookie },
      body: JSON.stringify(approveFields(page)),
    });
    assert.equal(json.status, 400);
    const big = await answerForm(harness.port, { ...approveFields(page), pad: 'x'.repeat(17 * 1024) }, page.cookie);
    assert.equal(big.status, 413);
    const repeated = await send(harness.port, 'POST', CONSENT_PATH, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
      body: `${new URLSearchParams(approveFields(page)).toString()}&decision=deny`,
    });
    assert.equal(repeated.status, 400);
    const odd = await answerForm(harness.port, approveFields(page, 'maybe'), page.cookie);
    assert.equal(odd.status, 400);
    const missing = await answerForm(harness.port, { consent: page.consent, decision: 'approve' }, page.cookie);
    assert.equal(missing.status, 400);
    // None of those spent it.
    assert.equal((await answerForm(harness.port, approveFields(page), page.cookie)).status, 200);
  });

  it('renders refusals as protected HTML pages', async () => {
    const answer = await answerForm(harness.port, { consent: 'y'.repeat(43), csrf: 'z'.repeat(43), decision: 'approve' }, 'irrelevant=1');
    assert.equal(answer.status, 400);
    assert.equal(answer.headers['content-type'], 'text/html; charset=utf-8');
    assert.ok(String(answer.headers['content-security-policy']).startsWith(EXPECTED_CSP_PREFIX));
    assert.match(String(answer.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(answer.headers['x-frame-options'], 'DENY');
    assert.equal(answer.headers['cache-control'], 'no-store');
    assert.match(answer.body, /<html lang="en">/);
  });

  it('answers 503 pages when storage is down', async () => {
    await withHarness({}, async (broken) => {
      await broken.store.close();
      const page = await send(broken.port, 'GET', '/start');
      assert.equal(page.status, 503);
      assert.equal(page.headers['retry-after'], '5');
      assert.equal(page.headers['set-cookie'], undefined, 'no cookie for a consent that was never stored');
      await assert.rejects(broken.consent.alreadyApproved(sampleRequest()), { name: 'StorageUnavailableError' });
    });
  });
});

describe('remembered consent', () => {
  let harness: Harness;
  before(async () => (harness = await startHarness()));
  after(async () => harness.close());

  let user = 0;
  /** A fresh subject per test, so remembered approvals never leak between tests. */
  function freshRequest(overrides: Partial<ConsentRequest> = {}): ConsentRequest {
    user += 1;
    return sampleRequest({ subject: `user-${user}`, ...overrides });
  }

  async function approve(request: ConsentRequest, decision = 'approve'): Promise<void> {
    const page = await showPage(harness, request, PENDING);
    const answer = await answerForm(harness.port, approveFields(page, decision), page.cookie);
    assert.equal(answer.status, 200);
  }

  it('remembers an approved CIMD client for this user', async () => {
    const request = freshRequest();
    assert.equal(await harness.consent.alreadyApproved(request), false);
    await approve(request);
    assert.equal(await harness.consent.alreadyApproved(request), true);
    assert.equal(await harness.consent.alreadyApproved({ ...request, subject: 'someone-else' }), false);
    assert.equal(await harness.consent.alreadyApproved({ ...request, clientId: 'https://other.example.com/client.json' }), false);
  });

  it('always asks registered clients again', async () => {
    const request = freshRequest({ registeredClient: true, clientId: 'dcr-client-1' });
    const before = harness.store.size;
    await approve(request);
    assert.equal(await harness.consent.alreadyApproved(request), false);
    assert.equal(harness.store.size, before, 'nothing remembered for a registered client');
  });

  it('forgets when asked (revocation)', async () => {
    const request = freshRequest();
    await approve(request);
    await harness.consent.forget(request.subject, request.clientId);
    assert.equal(await harness.consent.alreadyApproved(request), false);
  });

  it('forgets after rememberSeconds', async () => {
    const request = freshRequest();
    await approve(request);
    harness.clock.advance(30 * 86_400_000 - 1_000);
    assert.equal(await harness.consent.alreadyApproved(request), true);
    harness.clock.advance(1_000);
    assert.equal(await harness.consent.alreadyApproved(request), false);
  });

  it('covers only the approved endpoint, redirect host and scopes', async () => {
    const request = freshRequest({ scope: ['mcp:tools', 'mcp:read'] });
    await approve(request);
    assert.equal(await harness.consent.alreadyApproved({ ...request, scope: ['mcp:read'] }), true, 'narrower scope');
    assert.equal(await harness.consent.alreadyApproved({ ...request, scope: [] }), true);
    assert.equal(await harness.consent.alreadyApproved({ ...request, scope: ['mcp:tools', 'mcp:admin'] }), false, 'wider scope');
    assert.equal(await harness.consent.alreadyApproved({ ...request, endpointPath: '/mcp/other' }), false, 'another endpoint');
    assert.equal(await harness.consent.alreadyApproved({ ...request, redirectUri: 'https://elsewhere.example.net/cb' }), false, 'another host');
    assert.equal(await harness.consent.alreadyApproved({ ...request, redirectUri: 'https://client.example.com/other-path' }), true, 'same host');
  });

  it('ignores a loopback client\'s changing port', async () => {
    const request = freshRequest({ redirectUri: 'http://127.0.0.1:50001/callback' });
    await approve(request);
    assert.equal(await harness.consent.alreadyApproved({ ...request, redirectUri: 'http://127.0.0.1:61234/callback' }), true);
  });

  it('keeps approvals of two endpoints, answered at the same time', async () => {
    const first = freshRequest();
    const second = { ...first, endpointPath: '/mcp/second' };
    const pages = [await showPage(harness, first, PENDING), await showPage(harness, second, PENDING)];
    const answers = await Promise.all(pages.map((page) => answerForm(harness.port, approveFields(page), page.cookie)));
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200]);
    assert.equal(await harness.consent.alreadyApproved(first), true);
    assert.equal(await harness.consent.alreadyApproved(second), true);
    await harness.consent.forget(first.subject, first.clientId);
    assert.equal(await harness.consent.alreadyApproved(second), false, 'one forget withdraws every endpoint');
  });

  it('a denial withdraws an earlier approval', async () => {
    const request = freshRequest();
    await approve(request);
    await approve(request, 'deny');
    assert.equal(await harness.consent.alreadyApproved(request), false);
  });

  it('never remembers when rememberSeconds is 0', async () => {
    await withHarness({ policy: { rememberSeconds: 0 } }, async (never) => {
      const request = sampleRequest();
      const page = await showPage(never, request, PENDING);
      assert.match(page.answer.body, /asked again the next time/);
      assert.equal((await answerForm(never.port, approveFields(page), page.cookie)).status, 200);
      assert.equal(await never.consent.alreadyApproved(request), false);
      assert.equal(never.store.size, 0);
    });
  });

  it('skips the prompt for trusted CIMD clients, never for registered ones', async () => {
    const trustedId = 'https://trusted.example.com/client.json';
    await withHarness({ policy: { trustedClientIds: new Set([trustedId, 'dcr-lookalike']) } }, async (trusted) => {
      assert.equal(await trusted.consent.alreadyApproved(sampleRequest({ clientId: trustedId })), true);
      assert.equal(await trusted.consent.alreadyApproved(sampleRequest()), false);
      assert.equal(await trusted.consent.alreadyApproved(sampleRequest({ clientId: trustedId, registeredClient: true })), false);
      assert.equal(await trusted.consent.alreadyApproved(sampleRequest({ clientId: 'dcr-lookalike', registeredClient: true })), false);
    });
  });
});
