import { createHash } from 'node:crypto';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import type { TestIdp } from './test-idp.js';

/** A client metadata document shaped like Claude Code's: portless loopback redirects, no application_type. */
export function claudeLikeDocument(clientId: string) {
  return {
    client_id: clientId,
    client_name: 'Claude Code (runtime test)',
    redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/**
 * The official client's OAuthClientProvider, kept in memory: a CIMD client_id and a loopback
 * redirect on a random port, the way Claude Code signs in. The "browser" is `drive` below.
 */
export class TestOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl: string;
  authorizationUrl: URL | undefined;
  /** The URL the "browser" actually opened; a concurrent second sign-in may replace authorizationUrl. */
  openedUrl: URL | undefined;
  private savedTokens: any;
  private discovery: any;
  private readonly verifiers: string[] = [];
  private readonly redirect: string;

  constructor(clientId: string, callbackPort: number) {
    this.clientMetadataUrl = clientId;
    this.redirect = `http://localhost:${callbackPort}/callback`;
  }

  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return {
      redirect_uris: [this.redirect],
      client_name: 'Claude Code (runtime test)',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return { client_id: this.clientMetadataUrl };
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: any) {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  // Persisting discovery lets the client check that the code came from the issuer it discovered
  // (the `iss` authorization-response parameter, RFC 9207).
  saveDiscoveryState(state: any) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  // The client can start two sign-ins at once (a 401 on the POST and another on its GET stream);
  // the verifier that counts is the one whose challenge is in the URL the "browser" opened.
  saveCodeVerifier(verifier: string) {
    this.verifiers.push(verifier);
  }
  codeVerifier() {
    const challenge = (this.openedUrl ?? this.authorizationUrl)?.searchParams.get('code_challenge');
    const matching = this.verifiers.find((verifier) => createHash('sha256').update(verifier).digest('base64url') === challenge);
    return matching ?? this.verifiers.at(-1) ?? '';
  }
  get accessToken(): string | undefined {
    return this.savedTokens?.access_token;
  }
}

/**
 * What the user's browser does between the client opening the authorization URL and the client's
 * loopback callback receiving the code: the bridge's redirect (with its sign-in cookie), the
 * provider's login, and the bridge's callback. Returns the final redirect to the client.
 */
export async function browserSignIn(authorizationUrl: string, idp: Pick<TestIdp, 'signIn'>, username: string): Promise<URL> {
  const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
  if (authorize.status !== 302) throw new Error(`authorize answered ${authorize.status}: ${await authorize.text()}`);
  const cookie = (authorize.headers.get('set-cookie') ?? '').split(';')[0]!;
  const toBridge = await idp.signIn(authorize.headers.get('location')!, username);
  const callback = await answerConsent(await fetch(toBridge, { redirect: 'manual', headers: cookie ? { cookie } : {} }), toBridge);
  if (callback.status !== 302) throw new Error(`callback answered ${callback.status}: ${await callback.text()}`);
  return new URL(callback.headers.get('location')!);
}

/**
 * When the bridge shows its consent page, answers it the way the user would: submits the page's form
 * with its hidden fields and the consent cookie. Any other response is passed through untouched.
 */
export async function answerConsent(response: Response, pageUrl: string, decision: 'approve' | 'deny' = 'approve'): Promise<Response> {
  if (response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('text/html')) return response;
  const page = await response.text();
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
  if (!action) throw new Error(`expected the consent page, got: ${page.slice(0, 300)}`);
  const fields = new URLSearchParams();
  for (const [, name, value] of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(name!, value!);
  fields.set('decision', decision);
  const cookies = response.headers.getSetCookie().map((header) => header.split(';')[0]).join('; ');
  return fetch(new URL(action, pageUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies },
    body: fields.toString(),
  });
}

/**
 * Connects the official client with OAuth the way an MCP client does on first use: the handshake,
 * a 401 on the first real request, discovery, sign-in in the "browser", token exchange, retry.
 */
export async function signedInClient(mcpUrl: string, provider: TestOAuthProvider, idp: Pick<TestIdp, 'signIn'>, username: string, era: 'legacy' | 'auto' = 'legacy') {
  const make = () => {
    const client = new Client({ name: 'oauth-runtime-test', version: '1.0.0' }, { versionNegotiation: { mode: era } });
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    return { client, transport };
  };
  let { client, transport } = make();
  try {
    await client.connect(transport);
    await client.listTools();
    return client;
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  if (!provider.authorizationUrl) throw new Error('the client was not sent to sign in');
  provider.openedUrl = provider.authorizationUrl;
  const landing = await browserSignIn(provider.openedUrl.toString(), idp, username);
  const error = landing.searchParams.get('error');
  if (error) throw new Error(`sign-in refused: ${error}: ${landing.searchParams.get('error_description')}`);
  await transport.finishAuth(landing.searchParams);
  await client.close().catch(() => undefined);
  ({ client, transport } = make());
  await client.connect(transport);
  return client;
}

// --- raw OAuth exchanges, for the protocol edges the official client never produces ---------------

/** RFC 7636 S256: a verifier of 43 unreserved characters (random unless given) and its challenge. */
export function pkcePair(verifier = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString('base64url')) {
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** `<base>/oauth/<slug>/authorize` with `params` as the query; undefined values are left out. */
export function authorizeUrl(base: string, slug: string, params: Record<string, string | undefined>): string {
  const url = new URL(`/oauth/${slug}/authorize`, base);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

export interface RawSignInOptions {
  /** Origin the bridge is reached at (its Base URL, or another instance behind the same Base URL). */
  readonly base: string;
  readonly slug: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly idp: TestIdp;
  readonly username: string;
  readonly resource?: string;
  readonly verifier?: string;
  readonly state?: string;
  /** The scope the client asks for (space-separated); absent: none, as most clients' first sign-in. */
  readonly scope?: string;
}

export interface BegunSignIn {
  readonly verifier: string;
  readonly state: string;
  /** `name=value` of the bridge's sign-in cookie, ready for a Cookie header. */
  readonly cookie: string;
  /** Where the bridge sent the browser: the provider's authorization endpoint. */
  readonly providerUrl: string;
}

/** The browser's first step: /authorize, which must answer 302 to the provider and set the sign-in cookie. */
export async function beginRawSignIn(options: Omit<RawSignInOptions, 'idp' | 'username'>): Promise<BegunSignIn> {
  const { verifier, challenge } = pkcePair(options.verifier);
  const state = options.state ?? `client-state-${Math.random().toString(36).slice(2)}`;
  const url = authorizeUrl(options.base, options.slug, {
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    resource: options.resource,
    scope: options.scope,
  });
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  const body = await response.text();
  if (response.status !== 302 || !location) throw new Error(`authorize answered ${response.status}: ${body}`);
  if (location.startsWith(options.redirectUri)) throw new Error(`authorize sent the browser back to the client: ${location}`);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  if (!cookie) throw new Error('authorize set no sign-in cookie');
  return { verifier, state, cookie, providerUrl: location };
}

/** The browser's last step: the provider's redirect back to the bridge's callback (not followed further). */
export async function finishRawSignIn(callbackUrl: string, cookie?: string, consent: 'approve' | 'deny' = 'approve'): Promise<Response> {
  return answerConsent(await fetch(callbackUrl, { redirect: 'manual', headers: cookie ? { cookie } : {} }), callbackUrl, consent);
}

export interface RawSignIn {
  /** The one-time code, or null when the bridge sent an error back to the client instead. */
  readonly code: string | null;
  readonly error: string | null;
  readonly state: string | null;
  readonly iss: string | null;
  readonly verifier: string;
  readonly redirectLocation: URL;
}

/**
 * A whole browser sign-in without the official client: authorize (keeping the cookie), the
 * provider's login, the bridge's callback. Resolves with what reached the client's redirect URI,
 * a code or an error; throws only when the bridge did not redirect to the client at all.
 */
export async function rawSignIn(options: RawSignInOptions): Promise<RawSignIn> {
  const begun = await beginRawSignIn(options);
  const toBridge = await options.idp.signIn(begun.providerUrl, options.username);
  const callback = await finishRawSignIn(toBridge, begun.cookie);
  const location = callback.headers.get('location');
  const body = await callback.text();
  if (callback.status !== 302 || !location) throw new Error(`callback answered ${callback.status}: ${body}`);
  const landing = new URL(location);
  if (!location.startsWith(options.redirectUri)) throw new Error(`callback redirected elsewhere than the client: ${location}`);
  const params = landing.searchParams;
  return { code: params.get('code'), error: params.get('error'), state: params.get('state'), iss: params.get('iss'), verifier: begun.verifier, redirectLocation: landing };
}

export interface TokenExchange {
  readonly base: string;
  readonly slug: string;
  readonly code: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly verifier: string;
  readonly resource?: string;
}

export interface TokenAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

/** POST /oauth/<slug>/token with grant_type=authorization_code, as a public client. */
export async function exchangeCode(exchange: TokenExchange): Promise<TokenAnswer> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: exchange.code,
    client_id: exchange.clientId,
    redirect_uri: exchange.redirectUri,
    code_verifier: exchange.verifier,
  });
  if (exchange.resource !== undefined) form.set('resource', exchange.resource);
  return postToken(exchange.base, exchange.slug, form.toString());
}

/** A raw POST to the token endpoint (body and content type as given). */
export async function postToken(base: string, slug: string, body: string, contentType = 'application/x-www-form-urlencoded'): Promise<TokenAnswer> {
  const response = await fetch(new URL(`/oauth/${slug}/token`, base), { method: 'POST', headers: { 'content-type': contentType }, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** rawSignIn then exchangeCode: an access token for `username` (throws if either step is refused). */
export async function rawAccessToken(options: RawSignInOptions): Promise<string> {
  return (await rawTokens(options)).access_token as string;
}

/** rawSignIn then exchangeCode: the token endpoint's whole answer (access token, scope, refresh token). */
export async function rawTokens(options: RawSignInOptions): Promise<Record<string, unknown>> {
  const signedIn = await rawSignIn(options);
  if (!signedIn.code) throw new Error(`sign-in refused: ${signedIn.error}: ${signedIn.redirectLocation.searchParams.get('error_description')}`);
  const answer = await exchangeCode({ ...options, code: signedIn.code, verifier: signedIn.verifier });
  if (answer.status !== 200) throw new Error(`token exchange answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body as Record<string, unknown>;
}

/** An access token for each of `usernames`, one after the other, signed in through the bridge's `team` slug with a loopback redirect. */
export async function accessTokensOf(options: { base: string; clientId: string; idp: TestIdp }, usernames: readonly string[]): Promise<string[]> {
  const tokens: string[] = [];
  for (const username of usernames) {
    tokens.push(await rawAccessToken({ ...options, slug: 'team', redirectUri: 'http://localhost:7777/callback', username }));
  }
  return tokens;
}

/**
 * An OAuthClientProvider without a metadata document: the official client registers itself
 * (RFC 7591) the way Cursor, VS Code and claude.ai do, and keeps what it was issued.
 */
export class RegisteringOAuthProvider extends TestOAuthProvider {
  // The client may register twice when two requests get a 401 at once; the registration that counts
  // is the one whose client_id is in the URL the "browser" opened.
  private readonly registrations: any[] = [];

  constructor(callbackPort: number, readonly clientName = 'Registering test client') {
    super('', callbackPort);
    (this as { clientMetadataUrl: string | undefined }).clientMetadataUrl = undefined as unknown as string;
  }
  override get clientMetadata() {
    return { ...super.clientMetadata, client_name: this.clientName };
  }
  override clientInformation() {
    const opened = this.openedUrl?.searchParams.get('client_id');
    return this.registrations.find((information) => information.client_id === opened) ?? this.registrations.at(-1);
  }
  saveClientInformation(information: any) {
    this.registrations.push(information);
  }
}
