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
export async function browserSignIn(authorizationUrl: string, idp: TestIdp, username: string): Promise<URL> {
  const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
  if (authorize.status !== 302) throw new Error(`authorize answered ${authorize.status}: ${await authorize.text()}`);
  const cookie = (authorize.headers.get('set-cookie') ?? '').split(';')[0]!;
  const toBridge = await idp.signIn(authorize.headers.get('location')!, username);
  const callback = await fetch(toBridge, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  if (callback.status !== 302) throw new Error(`callback answered ${callback.status}: ${await callback.text()}`);
  return new URL(callback.headers.get('location')!);
}

/**
 * Connects the official client with OAuth the way an MCP client does on first use: the handshake,
 * a 401 on the first real request, discovery, sign-in in the "browser", token exchange, retry.
 */
export async function signedInClient(mcpUrl: string, provider: TestOAuthProvider, idp: TestIdp, username: string, era: 'legacy' | 'auto' = 'legacy') {
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
