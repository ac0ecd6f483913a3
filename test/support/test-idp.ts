import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { freePort, listenOnLoopback } from './ports.js';

/**
 * A real OpenID provider (panva's oidc-provider) on 127.0.0.1 over plain http, for tests that must
 * not mock the identity provider. Two shapes:
 * - generic OIDC (default): issuer at the origin, `groups` only in UserInfo (scope `groups`), the
 *   ID token carrying no user claims beyond `sub`, as strict providers do;
 * - Microsoft-shaped (`entra`): issuer `<origin>/<tenant>/v2.0`, and the ID token itself carries
 *   `tid`, `roles` (the user's groups), `name` and `preferred_username` (no `email`, as for many
 *   Entra users); UserInfo is never needed.
 * A user "signs in" with `signIn()`: no browser, no HTML scraping, just the redirects a browser
 * would follow and one form post to this file's own interaction route.
 */

export interface TestUser {
  readonly username: string;
  readonly email: string;
  readonly name: string;
  readonly groups: readonly string[];
}

export interface TestIdpClient {
  readonly client_id: string;
  readonly client_secret: string;
  readonly redirect_uris: readonly string[];
  readonly token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post';
}

export interface TestIdpOptions {
  readonly clients?: readonly TestIdpClient[];
  /** Replaces the default users (alice, bob). */
  readonly users?: readonly TestUser[];
  /** Client authentication methods the provider offers (and advertises); default basic and post. */
  readonly clientAuthMethods?: readonly ('client_secret_basic' | 'client_secret_post')[];
  /** Listen on this port (to bring a stopped provider back at the same issuer); default a free one. */
  readonly port?: number;
  readonly entra?: {
    readonly tenantId: string;
    /** The `tid` put in ID tokens; defaults to `tenantId`. Set it to test tenant checks. */
    readonly idTokenTenantId?: string;
  };
  /**
   * Publish the issuer (and every endpoint URL) on this loopback port instead of the one the
   * provider listens on: for a proxy (test/support/fault-proxy.ts) that listens there and forwards
   * to `port`. `origin` and `issuer` then name this port; `port` stays the listening one.
   */
  readonly publicPort?: number;
  /**
   * Issue refresh tokens for `offline_access` without `prompt=consent` (oidc-provider otherwise
   * drops the scope), as Microsoft and most providers do; `rotate` makes every refresh return a
   * new refresh token and consume the old one (a reused one then revokes the grant).
   */
  readonly refreshTokens?: boolean | { readonly rotate?: boolean };
}

export type TestIdpEndpoint = 'authorization' | 'token' | 'userinfo' | 'discovery' | 'jwks';

export interface SignInOptions {
  /** The user declines: the provider redirects back with `error=access_denied`. */
  readonly deny?: boolean;
}

export interface TestIdp {
  /** The issuer identifier exactly as the provider publishes it (no trailing slash). */
  readonly issuer: string;
  readonly origin: string;
  readonly port: number;
  addClient(client: TestIdpClient): Promise<void>;
  /** Runs the login for `username`; resolves with the redirect to the client's redirect_uri (not followed). */
  signIn(authorizationUrl: string, username: string, options?: SignInOptions): Promise<string>;
  setGroups(username: string, groups: readonly string[]): void;
  /** How many requests reached an endpoint; default the token endpoint. */
  requestCount(endpoint?: TestIdpEndpoint): number;
  stop(): Promise<void>;
}

export const DEFAULT_TEST_USERS: readonly TestUser[] = Object.freeze([
  { username: 'alice', email: 'alice@example.test', name: 'Alice Example', groups: ['mcp-users', 'admins'] },
  { username: 'bob', email: 'bob@example.test', name: 'Bob Example', groups: ['other'] },
]);

/** Two plain members of mcp-users, for tests that tell one caller apart from another. */
export const ALICE_AND_CAROL: readonly TestUser[] = Object.freeze([
  { username: 'alice', email: 'alice@example.test', name: 'Alice', groups: ['mcp-users'] },
  { username: 'carol', email: 'carol@example.test', name: 'Carol', groups: ['mcp-users'] },
]);

// --- the parts of oidc-provider's (untyped) API this file uses -------------------------------

interface InteractionDetails {
  readonly uid: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly grantId?: string;
}

interface OidcGrant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}

interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: object, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  readonly Grant: (new (properties: { accountId: string; clientId: string }) => OidcGrant) & { find(id: string): Promise<OidcGrant | undefined> };
  readonly Client: { readonly adapter: Adapter };
  on(event: string, listener: (...args: unknown[]) => void): void;
}

type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;

interface Adapter {
  upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Record<string, unknown> | undefined>;
  findByUid(uid: string): Promise<Record<string, unknown> | undefined>;
  findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

// oidc-provider ships no type declarations; importing through a variable keeps tsc from looking.
const OIDC_PROVIDER_MODULE: string = 'oidc-provider';

async function loadProvider(): Promise<ProviderConstructor> {
  const module = (await import(OIDC_PROVIDER_MODULE)) as { Provider: ProviderConstructor };
  return module.Provider;
}

// --------------------------------------------------------------------------------------------

export async function startTestIdp(options: TestIdpOptions = {}): Promise<TestIdp> {
  const Provider = await loadProvider();
  const users = new Map((options.users ?? DEFAULT_TEST_USERS).map((user) => [user.username, { ...user, groups: [...user.groups] }]));
  const entra = options.entra;
  const mount = entra ? `/${entra.tenantId}/v2.0` : '';
  const counts = new Map<TestIdpEndpoint, number>();
  // The memory adapter bundled with oidc-provider is one LRU shared by every provider in the
  // process (and evicts at 1000 entries); each test IdP gets its own unbounded store instead.
  const adapter = createAdapterFactory();

  const claimsFor = (accountId: string) => {
    const user = users.get(accountId);
    if (!user) return undefined;
    const common = { sub: user.username, name: user.name, preferred_username: user.email };
    return entra
      ? { ...common, tid: entra.idTokenTenantId ?? entra.tenantId, roles: [...user.groups] }
      : { ...common, email: user.email, email_verified: true, groups: [...user.groups] };
  };

  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const configuration: Record<string, unknown> = {
    adapter,
    clients: [],
    jwks: { keys: [{ ...signingKey, kid: randomUUID(), use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: entra
      ? { openid: ['sub', 'tid', 'roles'], profile: ['name', 'preferred_username'], email: ['email', 'email_verified'] }
      : { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email', 'email_verified'], groups: ['groups'] },
    // Entra puts user claims into the ID token; a strict OIDC provider (the default here) keeps
    // them for UserInfo when an access token is issued.
    conformIdTokenClaims: !entra,
    clientAuthMethods: [...(options.clientAuthMethods ?? ['client_secret_basic', 'client_secret_post'])],
    features: { devInteractions: { enabled: false } },
    // Explicit lifetimes (seconds) keep oidc-provider from printing a notice for each default.
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600, RefreshToken: 86_400 },
    pkce: { required: () => true },
    responseTypes: ['code'],
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${mount}/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, id: string) => {
      if (!users.has(id)) return undefined;
      return { accountId: id, claims: async () => claimsFor(id) };
    },
    renderError: (ctx: { type: string; body: string }, out: Record<string, unknown>) => {
      ctx.type = 'text/plain';
      ctx.body = `oidc-provider error: ${JSON.stringify(out)}`;
    },
  };

  if (options.refreshTokens) {
    configuration.rotateRefreshToken = typeof options.refreshTokens === 'object' && options.refreshTokens.rotate === true;
  }
  const { server, port, provider } = await listen(Provider, configuration, mount, options.port, options.publicPort);
  const origin = `http://127.0.0.1:${options.publicPort ?? port}`;
  const issuer = `${origin}${mount}`;
  // A 500 inside the provider is a bug in this file's configuration: make it visible.
  provider.on('server_error', (_ctx, error) => console.error('test IdP server_error', error));

  for (const client of options.clients ?? []) await registerClient(provider, client);
  const providerCallback = provider.callback();

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', origin).pathname;
    if (mount && path !== mount && !path.startsWith(`${mount}/`)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not under the issuer path');
      return;
    }
    const local = path.slice(mount.length) || '/';
    const interaction = /^\/interaction\/([\w-]+)$/.exec(local);
    if (interaction) {
      handleInteraction(provider, users, req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`interaction failed: ${error instanceof Error ? error.message : String(error)}`);
      });
      return;
    }
    const endpoint = endpointOf(req.method ?? 'GET', local);
    if (endpoint) counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
    if (endpoint === 'authorization' && options.refreshTokens) req.url = withConsentPromptForOfflineAccess(req.url ?? '/', origin);
    if (mount) {
      // oidc-provider derives its mount path from originalUrl minus url, the Express convention.
      (req as IncomingMessage & { originalUrl?: string }).originalUrl = req.url;
      req.url = (req.url ?? '/').slice(mount.length) || '/';
    }
    providerCallback(req, res);
  });

  return {
    issuer,
    origin,
    port,
    addClient: (client) => registerClient(provider, client),
    signIn: (authorizationUrl, username, signInOptions) => signIn(authorizationUrl, username, signInOptions ?? {}),
    setGroups(username, groups) {
      const user = users.get(username);
      if (!user) throw new Error(`test IdP has no user ${username}`);
      user.groups = [...groups];
    },
    requestCount: (endpoint = 'token') => counts.get(endpoint) ?? 0,
    stop: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

async function listen(Provider: ProviderConstructor, configuration: Record<string, unknown>, mount: string, fixedPort?: number, publicPort?: number) {
  // freePort can race with another process taking the port; try a few before giving up.
  for (let attempt = 1; ; attempt += 1) {
    const port = fixedPort ?? (await freePort());
    // The issuer embeds the port, so the provider is built only once the port is known.
    const provider = new Provider(`http://127.0.0.1:${publicPort ?? port}${mount}`, { ...configuration });
    const server: Server = createServer();
    try {
      await listenOnLoopback(server, port);
      return { server, port, provider };
    } catch (error) {
      if (fixedPort !== undefined || attempt >= 5) throw error;
    }
  }
}

/** oidc-provider keeps `offline_access` only with prompt=consent (OIDC Core 11); add it when absent. */
function withConsentPromptForOfflineAccess(url: string, origin: string): string {
  const parsed = new URL(url, origin);
  const scopes = (parsed.searchParams.get('scope') ?? '').split(' ');
  if (!scopes.includes('offline_access') || parsed.searchParams.has('prompt')) return url;
  parsed.searchParams.set('prompt', 'consent');
  return `${parsed.pathname}${parsed.search}`;
}

function endpointOf(method: string, path: string): TestIdpEndpoint | undefined {
  if (path === '/token' && method === 'POST') return 'token';
  if (path === '/me') return 'userinfo';
  if (path === '/auth') return 'authorization';
  if (path === '/jwks') return 'jwks';
  if (path === '/.well-known/openid-configuration') return 'discovery';
  return undefined;
}

async function registerClient(provider: OidcProvider, client: TestIdpClient): Promise<void> {
  await provider.Client.adapter.upsert(client.client_id, {
    client_id: client.client_id,
    client_secret: client.client_secret,
    redirect_uris: [...client.redirect_uris],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: client.token_endpoint_auth_method ?? 'client_secret_basic',
  });
}

/**
 * The login "page": a POST of `username` (and optionally `decision=deny`) finishes the interaction
 * with both login and consent, so one round trip takes the user back to the client.
 */
async function handleInteraction(
  provider: OidcProvider,
  users: ReadonlyMap<string, TestUser>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/html' }).end(
      `<form method="post"><input name="username"><button>Sign in</button><button name="decision" value="deny">Deny</button></form>`,
    );
    return;
  }
  const form = new URLSearchParams(await readBody(req));
  if (form.get('decision') === 'deny') {
    await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user declined the sign-in' }, { mergeWithLastSubmission: false });
    return;
  }
  const username = form.get('username') ?? '';
  if (!users.has(username)) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end(`unknown test user ${JSON.stringify(username)}`);
    return;
  }
  const clientId = String(details.params.client_id);
  const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId: username, clientId });
  grant.addOIDCScope(String(details.params.scope ?? 'openid'));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId: username }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Plays the browser: follows redirects with its own cookies, posts the login form, stops at the client. */
async function signIn(authorizationUrl: string, username: string, options: SignInOptions): Promise<string> {
  const redirectUri = new URL(authorizationUrl).searchParams.get('redirect_uri');
  if (!redirectUri) throw new Error('authorization URL has no redirect_uri');
  const jar = new CookieJar();
  let next = new URL(authorizationUrl);
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < 12; hop += 1) {
    const response = await fetch(next, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { ...jar.header(next), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: form.toString() } : {}),
    });
    jar.store(next, response.headers.getSetCookie());
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      const body = (await response.text()).slice(0, 500);
      throw new Error(`sign-in stopped at ${next.pathname} with HTTP ${response.status}: ${body}`);
    }
    await response.body?.cancel();
    const target = new URL(location, next);
    if (target.href.startsWith(redirectUri)) return target.href;
    next = target;
    form = /\/interaction\/[\w-]+$/.test(target.pathname)
      ? new URLSearchParams(options.deny ? { decision: 'deny' } : { username })
      : undefined;
  }
  throw new Error('sign-in did not reach the client after 12 redirects');
}

/** Just enough of RFC 6265 for one origin: name, value, path, deletion by Max-Age=0 / past Expires. */
export class CookieJar {
  readonly #cookies = new Map<string, { name: string; value: string; path: string }>();

  store(url: URL, setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = url.pathname.replace(/\/[^/]*$/, '') || '/';
      let expired = false;
      for (const attribute of attributes) {
        const [key = '', ...rest] = attribute.split('=');
        const attributeValue = rest.join('=').trim();
        const lower = key.trim().toLowerCase();
        if (lower === 'path' && attributeValue.startsWith('/')) path = attributeValue;
        if (lower === 'max-age' && Number(attributeValue) <= 0) expired = true;
        if (lower === 'expires' && Date.parse(attributeValue) <= Date.now()) expired = true;
      }
      const key = `${name};${path}`;
      if (expired || value === '') this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, path });
    }
  }

  header(url: URL): Record<string, string> {
    const matching = [...this.#cookies.values()].filter(({ path }) =>
      url.pathname === path || url.pathname.startsWith(path.endsWith('/') ? path : `${path}/`));
    return matching.length ? { cookie: matching.map(({ name, value }) => `${name}=${value}`).join('; ') } : {};
  }
}

/** oidc-provider's storage contract on plain Maps, one store per test IdP. */
function createAdapterFactory(): (model: string) => Adapter {
  const records = new Map<string, { payload: Record<string, unknown>; expiresAt: number }>();
  const indexes = new Map<string, string>();
  const live = (key: string) => {
    const record = records.get(key);
    if (record && record.expiresAt <= Date.now()) {
      records.delete(key);
      return undefined;
    }
    return record?.payload;
  };
  return (model) => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        records.set(key(id), { payload, expiresAt: typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity });
        if (typeof payload.uid === 'string') indexes.set(`${model}:uid:${payload.uid}`, id);
        if (typeof payload.userCode === 'string') indexes.set(`${model}:userCode:${payload.userCode}`, id);
      },
      async find(id) {
        return live(key(id));
      },
      async findByUid(uid) {
        const id = indexes.get(`${model}:uid:${uid}`);
        return id === undefined ? undefined : live(key(id));
      },
      async findByUserCode(userCode) {
        const id = indexes.get(`${model}:userCode:${userCode}`);
        return id === undefined ? undefined : live(key(id));
      },
      async consume(id) {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        records.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const [recordKey, record] of records) {
          if (record.payload.grantId === grantId) records.delete(recordKey);
        }
      },
    };
  };
}
