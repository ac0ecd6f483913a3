// The development OpenID provider of `npm run start:oauth`: panva's oidc-provider (a dev dependency,
// the one the tests sign in with) on 127.0.0.1, one demo user with a password made for this run, one
// confidential client (the palette's sign-in bridge) and everything kept in memory. A demo only: it
// never listens anywhere but loopback and forgets everything when the script stops.
import { createHash, generateKeyPairSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

export const DEMO_HOST = '127.0.0.1';

/**
 * Starts the provider on DEMO_HOST:port. `user` is { username, password, email, name, groups };
 * `client` is { clientId, clientSecret, redirectUri }. Resolves with { issuer, stop() }.
 */
export async function startDemoIdp({ port, user, client }) {
  const Provider = await loadProvider();
  const issuer = `http://${DEMO_HOST}:${port}`;
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [client.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: randomUUID(), use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    // The bridge reads e-mail and groups from UserInfo, as from a strict production provider.
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email', 'email_verified'], groups: ['groups'] },
    features: { devInteractions: { enabled: false } },
    // Explicit lifetimes (seconds) keep oidc-provider from printing a notice for each default.
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
    pkce: { required: () => true },
    responseTypes: ['code'],
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) =>
      id === user.username
        ? { accountId: id, claims: async () => ({ sub: id, name: user.name, preferred_username: user.username, email: user.email, email_verified: true, groups: [...user.groups] }) }
        : undefined,
  });
  provider.on('server_error', (_ctx, error) => console.error('demo identity provider error:', error.message));

  const callback = provider.callback();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (/^\/interaction\/[\w-]+$/.test(path)) {
      loginPage(provider, user, req, res).catch((error) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`sign-in failed: ${error.message}`);
      });
      return;
    }
    callback(req, res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, DEMO_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    issuer,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The provider's login page: user name and password. A correct pair finishes login and the
 * provider's consent in one step; the bridge then asks the user about the MCP client itself.
 */
async function loginPage(provider, user, req, res) {
  const details = await provider.interactionDetails(req, res);
  if (req.method !== 'POST') {
    page(res, 200, '');
    return;
  }
  const form = new URLSearchParams(await readBody(req));
  if (!(sameText(form.get('username') ?? '', user.username) & sameText(form.get('password') ?? '', user.password))) {
    page(res, 401, 'Wrong user name or password.');
    return;
  }
  const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId: user.username, clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope ?? 'openid'));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId: user.username }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

function page(res, status, problem) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-frame-options': 'DENY' });
  res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Demo sign-in (development only)</title>
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem}
.demo{background:#fff3cd;border:1px solid #e0c060;padding:.6rem;border-radius:4px}
label{display:block;margin:.8rem 0}input{display:block;width:100%;padding:.3rem}.problem{color:#b00020}</style></head>
<body><p class="demo"><strong>DEMO identity provider</strong> of <code>npm run start:oauth</code>: for trying the sign-in on this computer only.
Use the user name and password printed in the terminal.</p>
${problem ? `<p class="problem">${problem}</p>` : ''}
<form method="post">
<label>User name <input name="username" autocomplete="username" required autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form></body></html>`);
}

/** Compared through fixed-length digests, so the time taken says nothing about the password. */
function sameText(given, expected) {
  const digest = (text) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected)) ? 1 : 0;
}

const MAX_FORM_BYTES = 4096;

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        req.destroy();
        reject(new Error('form too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * oidc-provider, imported without its "Unsupported runtime" warning: on loading it warns on any
 * Node.js older than 22 LTS, but the palette supports Node 20.19+ and every test signs in through it
 * on Node 20. Only that one line is held back, only while the module loads; anything else it says
 * is printed as usual.
 */
async function loadProvider() {
  const warn = console.warn;
  console.warn = (...args) => {
    if (typeof args[0] === 'string' && args[0].includes('oidc-provider WARNING: Unsupported runtime.')) return;
    warn.apply(console, args);
  };
  try {
    return (await import('oidc-provider')).Provider;
  } finally {
    console.warn = warn;
  }
}
