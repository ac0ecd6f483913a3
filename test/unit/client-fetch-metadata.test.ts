import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import { connect as tcpConnect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientMetadataError, type ClientMetadataErrorReason } from '../../lib/auth/clients/client-metadata-error.js';
import {
  fetchClientMetadata,
  type FetchClientMetadataOptions,
  type HttpsRequest,
  type ResolvedAddress,
} from '../../lib/auth/clients/fetch-client-metadata.js';
import { parseHostAllowList } from '../../lib/auth/clients/host-allow-list.js';

const HOST = 'clients.test';

let dir = '';
let cert = '';
let server: Server;
let port = 0;
/** The client port of every connection the server accepted, in order, and who waits for the next. */
const accepted: number[] = [];
const acceptWaiters = new Set<() => void>();
let lookups = 0;
let requests = 0;
let lastRequest: { host: string | undefined; servername: string | undefined } | undefined;

function base(): string {
  return `https://${HOST}:${port}`;
}

function document(path: string, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    client_id: `${base()}${path}`,
    client_name: 'Test Client',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code'],
    token_endpoint_auth_method: 'none',
    extension_field: { ignored: true },
    ...overrides,
  });
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  lastRequest = {
    host: req.headers.host,
    servername: (req.socket as unknown as { servername?: string }).servername,
  };
  const json = (body: string, type = 'application/json'): void => {
    res.writeHead(200, { 'content-type': type });
    res.end(body);
  };
  switch (req.url) {
    case '/ok':
      return json(document('/ok'));
    case '/ok+json':
      return json(document('/ok+json'), 'application/oauth-client-metadata+json; charset=utf-8');
    case '/mismatch':
      return json(document('/mismatch', { client_id: `${base()}/other` }));
    case '/redirect':
      res.writeHead(302, { location: '/ok' });
      return void res.end();
    case '/missing':
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end('{}');
    case '/html':
      return json(document('/html'), 'text/html');
    case '/latin1':
      return json(document('/latin1'), 'application/json; charset=iso-8859-1');
    case '/broken':
      return json('{"client_id": ');
    case '/array':
      return json('[]');
    case '/bad-redirects':
      return json(document('/bad-redirects', { redirect_uris: ['http://evil.example/cb'] }));
    case '/streamed-big': {
      // 20 KiB in 1 KiB chunks, no content-length: the limit must be enforced while streaming.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = ' '.repeat(1024);
      let sent = 0;
      const pump = (): void => {
        while (sent < 20 && !res.destroyed) {
          sent += 1;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    case '/declared-big':
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(20 * 1024) });
      return void res.end(' '.repeat(20 * 1024));
    case '/hang':
      return; // never answers
    default:
      res.writeHead(500);
      res.end();
  }
}

const resolveTestHosts = async (hostname: string): Promise<ResolvedAddress[]> => {
  lookups += 1;
  if (hostname === HOST || hostname === 'elsewhere.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

const trustingTestCa: HttpsRequest = (options, callback) => {
  requests += 1;
  return httpsRequest({ ...options, ca: cert }, callback);
};

/** The seams a test needs to reach the loopback server: every one of them explicit. */
function options(overrides: Partial<FetchClientMetadataOptions> = {}): FetchClientMetadataOptions {
  return {
    allowList: parseHostAllowList(HOST),
    lookup: resolveTestHosts,
    request: trustingTestCa,
    addressPolicy: (ip) => ip === '127.0.0.1',
    ...overrides,
  };
}

async function assertReason(
  promise: Promise<unknown>,
  reason: ClientMetadataErrorReason,
): Promise<ClientMetadataError> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof ClientMetadataError, `expected a ClientMetadataError, got ${String(caught)}`);
  assert.equal(caught.reason, reason, `${caught.reason}: ${caught.message} (${caught.detail ?? ''})`);
  // The message goes to the client as error_description: no addresses, no stack, OAuth-safe characters.
  assert.doesNotMatch(caught.message, /127\.0\.0\.1|::1|\n|at /);
  assert.match(caught.message, /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
  return caught;
}

/**
 * Proves that nothing connected since `since` (an index into `accepted`): a marker connection made
 * now is accepted after anything the code under test had already started, so the marker must be
 * the only connection the server saw since then.
 */
async function assertOnlyMarkerConnects(since: number): Promise<void> {
  const marker = tcpConnect(port, '127.0.0.1');
  await once(marker, 'connect');
  const markerPort = marker.localPort!;
  await new Promise<void>((resolve) => {
    const check = () => {
      if (!accepted.includes(markerPort)) return;
      acceptWaiters.delete(check);
      resolve();
    };
    acceptWaiters.add(check);
    check();
  });
  marker.destroy();
  assert.deepEqual(accepted.slice(since), [markerPort], 'no connection may reach the server');
}

async function assertNoTraffic(work: () => Promise<unknown>, reason: ClientMetadataErrorReason): Promise<void> {
  const since = accepted.length;
  await assertReason(work(), reason);
  await assertOnlyMarkerConnects(since);
  assert.equal(requests, 0, 'no request may be started');
}

describe('fetchClientMetadata', () => {
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'client-metadata-'));
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
        '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`, '-days', '1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, handle);
    server.on('connection', (socket) => {
      accepted.push((socket as Socket).remotePort ?? -1);
      for (const wake of acceptWaiters) wake();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    lookups = 0;
    requests = 0;
    lastRequest = undefined;
  });

  it('returns the normalized, frozen document', async () => {
    const metadata = await fetchClientMetadata(`${base()}/ok`, options());
    assert.deepEqual(metadata, {
      clientId: `${base()}/ok`,
      clientName: 'Test Client',
      redirectUris: ['http://127.0.0.1/callback'],
      grantTypes: ['authorization_code'],
    });
    assert.ok(Object.isFrozen(metadata));
  });

  it('resolves once, connects to the vetted address, and keeps the name for SNI and Host', async () => {
    await fetchClientMetadata(`${base()}/ok`, options());
    assert.equal(lookups, 1, 'the socket must not resolve the name a second time');
    assert.equal(lastRequest?.host, `${HOST}:${port}`);
    assert.equal(lastRequest?.servername, HOST);
  });

  it('accepts +json media types', async () => {
    const metadata = await fetchClientMetadata(`${base()}/ok+json`, options());
    assert.equal(metadata.clientId, `${base()}/ok+json`);
  });

  it('verifies the server certificate', async () => {
    const withoutCa: HttpsRequest = (requestOptions, callback) => httpsRequest(requestOptions, callback);
    await assertReason(fetchClientMetadata(`${base()}/ok`, options({ request: withoutCa })), 'fetch_failed');
  });

  it('refuses a document whose client_id is not its URL', async () => {
    await assertReason(fetchClientMetadata(`${base()}/mismatch`, options()), 'client_id_mismatch');
  });

  it('refuses to follow a redirect', async () => {
    await assertReason(fetchClientMetadata(`${base()}/redirect`, options()), 'redirect_refused');
  });

  it('refuses a status other than 200', async () => {
    const error = await assertReason(fetchClientMetadata(`${base()}/missing`, options()), 'bad_status');
    assert.match(error.message, /404/);
  });

  it('refuses a response that is not JSON', async () => {
    await assertReason(fetchClientMetadata(`${base()}/html`, options()), 'not_json');
    await assertReason(fetchClientMetadata(`${base()}/latin1`, options()), 'not_json');
    await assertReason(fetchClientMetadata(`${base()}/broken`, options()), 'not_json');
  });

  it('refuses JSON that is not a valid document', async () => {
    await assertReason(fetchClientMetadata(`${base()}/array`, options()), 'invalid_document');
    await assertReason(fetchClientMetadata(`${base()}/bad-redirects`, options()), 'invalid_document');
  });

  it('stops reading a streamed body past 8 KiB', async () => {
    await assertReason(fetchClientMetadata(`${base()}/streamed-big`, options()), 'too_large');
  });

  it('refuses a declared body past the limit', async () => {
    await assertReason(fetchClientMetadata(`${base()}/declared-big`, options()), 'too_large');
    await assertReason(fetchClientMetadata(`${base()}/ok`, options({ maxBytes: 64 })), 'too_large');
  });

  it('gives up on a server that never answers', async () => {
    await assertReason(fetchClientMetadata(`${base()}/hang`, options({ timeoutMs: 300 })), 'timeout');
  });

  it('gives up on a resolver that never answers', async () => {
    const stuck = (): Promise<ResolvedAddress[]> => new Promise(() => {});
    const stalled = options({ lookup: stuck, timeoutMs: 200 });
    await assertNoTraffic(() => fetchClientMetadata(`${base()}/ok`, stalled), 'timeout');
  });

  it('reports a name that does not resolve as fetch_failed', async () => {
    const list = parseHostAllowList(`${HOST} unknown.test`);
    await assertNoTraffic(
      () => fetchClientMetadata(`https://unknown.test:${port}/ok`, options({ allowList: list })),
      'fetch_failed',
    );
  });

  it('refuses a host that is not on the allow-list before any lookup or connection', async () => {
    const elsewhere = `https://elsewhere.test:${port}/ok`;
    await assertNoTraffic(() => fetchClientMetadata(elsewhere, options()), 'host_not_allowed');
    assert.equal(lookups, 0);
    for (const list of ['', '*.clients.test', 'other.test']) {
      const allowList = parseHostAllowList(list);
      await assertNoTraffic(() => fetchClientMetadata(`${base()}/ok`, options({ allowList })), 'host_not_allowed');
    }
    assert.equal(lookups, 0);
  });

  // Canonical spellings only: a non-canonical one such as [::ffff:127.0.0.1] is already invalid_url.
  for (const host of ['127.0.0.1', '[::1]', '10.0.0.1', '[::ffff:7f00:1]', '[fd00::1]', '169.254.169.254', '0.0.0.0']) {
    it(`refuses the literal address ${host} without traffic`, async () => {
      // Default address policy, and the host even listed, so only the address check can refuse it.
      const defaults = { allowList: parseHostAllowList(HOST), lookup: resolveTestHosts, request: trustingTestCa };
      await assertNoTraffic(() => fetchClientMetadata(`https://${host}:${port}/ok`, defaults), 'address_not_public');
      assert.equal(lookups, 0);
    });
  }

  it('refuses a name resolving to loopback under the default address policy, without traffic', async () => {
    const defaults = { allowList: parseHostAllowList(HOST), lookup: resolveTestHosts, request: trustingTestCa };
    const since = accepted.length;
    const error = await assertReason(fetchClientMetadata(`${base()}/ok`, defaults), 'address_not_public');
    await assertOnlyMarkerConnects(since);
    assert.equal(requests, 0, 'no request may be started');
    assert.equal(lookups, 1);
    assert.match(error.detail ?? '', /127\.0\.0\.1/, 'the log detail names the address');
  });

  it('refuses a name when any one of its addresses is not allowed', async () => {
    const mixed = async (): Promise<ResolvedAddress[]> => [
      { address: '127.0.0.1', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ];
    await assertNoTraffic(() => fetchClientMetadata(`${base()}/ok`, options({ lookup: mixed })), 'address_not_public');
  });

  // Titles show the URL with <port>; the real port is only known once the server listens.
  for (const template of [
    'http://clients.test:<port>/ok',
    'https://user:pw@clients.test:<port>/ok',
    'https://clients.test:<port>/ok#frag',
    'https://clients.test:<port>/ok#',
    'https://CLIENTS.test:<port>/ok',
    'https://clients.test:<port>/x/../ok',
    'https://clients.test:<port>/o k',
    ' https://clients.test:<port>/ok',
    'https://[::ffff:127.0.0.1]:<port>/ok',
    'https://clients.test',
    'clients.test/ok',
    'not a url',
    '',
  ]) {
    it(`refuses the client_id ${JSON.stringify(template)} as invalid_url without traffic`, async () => {
      const url = template.replace('<port>', String(port));
      await assertNoTraffic(() => fetchClientMetadata(url, options()), 'invalid_url');
      assert.equal(lookups, 0);
    });
  }
});
