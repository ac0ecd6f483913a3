// Registration state on a real redis-server: counters shared by two Node-RED-side stores, and
// registrations that outlive the RedisStore (the Node-RED process) that wrote them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { silentLogger, type Logger } from '../../lib/core/logger.js';
import { redirectUriAllowed } from '../../lib/auth/clients/redirect-uri.js';
import { encodeRecord, RECORD_KINDS, type AccessGrant } from '../../lib/auth/sign-in-records.js';
import { createRegistrationHandler } from '../../lib/auth/registration/register-client.js';
import { createRegisteredClientLookup } from '../../lib/auth/registration/registered-clients.js';
import { parseRegistrationPolicy } from '../../lib/auth/registration/registration-policy.js';
import { createRevocationHandler } from '../../lib/auth/registration/revoke.js';
import { newOpaqueToken, sha256 } from '../../lib/auth/secrets.js';
import { createRedisStore, type RedisStore } from '../../lib/storage/redis-store.js';
import { waitForState } from '../../lib/storage/wait-for-state.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';

const STATE_TIMEOUT_MS = 15_000;
const VS_CODE = {
  client_name: 'Visual Studio Code',
  redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
  grant_types: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_method: 'none',
};

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

async function openStore(url: string, keyPrefix: string, logger: Logger = silentLogger): Promise<RedisStore> {
  const store = createRedisStore({ url, keyPrefix, logger });
  await waitForState(store, 'ready', STATE_TIMEOUT_MS);
  return store;
}

async function serve(handler: Handler): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function post(port: number, path: string, contentType: string, body: string): Promise<{ status: number; text: string; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), ...(retryAfter ? { retryAfter: String(retryAfter) } : {}) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const register = (port: number, body: unknown) => post(port, '/oauth/team/register', 'application/json', JSON.stringify(body));

describe('registration on a real Redis', { timeout: 90_000 }, () => {
  let redis: RedisServer;
  let raw: Redis;

  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });

  after(async () => {
    await raw?.quit();
    await redis?.stop();
  });

  it('increments atomically across two stores, setting the TTL once, when the counter is created', async () => {
    const prefix = `inc-${randomUUID().slice(0, 8)}`;
    const [first, second] = await Promise.all([openStore(redis.url, prefix), openStore(redis.url, prefix)]);
    try {
      const key = { namespace: 'ns', kind: 'dcr-limit', id: 'ip:x:1' };
      const counts = await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? first : second).increment(key, 600)));
      assert.deepEqual([...counts].sort((a, b) => a - b), Array.from({ length: 40 }, (_, index) => index + 1));
      const ttl = await raw.ttl(`${prefix}:ns:dcr-limit:ip:x:1`);
      assert.ok(ttl > 590 && ttl <= 600, `ttl ${ttl}`);
      await raw.expire(`${prefix}:ns:dcr-limit:ip:x:1`, 100);
      assert.equal(await first.increment(key, 600), 41);
      const kept = await raw.ttl(`${prefix}:ns:dcr-limit:ip:x:1`);
      assert.ok(kept > 90 && kept <= 100, `a later increment must not extend the window (ttl ${kept})`);
      // A counter someone left without expiry gets one on the next increment instead of living forever.
      await raw.set(`${prefix}:ns:dcr-limit:stuck`, '7');
      assert.equal(await second.increment({ ...key, id: 'stuck' }, 60), 8);
      const healed = await raw.ttl(`${prefix}:ns:dcr-limit:stuck`);
      assert.ok(healed > 50 && healed <= 60, `ttl ${healed}`);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('keeps registrations when the Node-RED side restarts: a new store finds them, with their unused period', async () => {
    const prefix = `dcr-${randomUUID().slice(0, 8)}`;
    const namespace = `ns-${randomUUID().slice(0, 8)}`;
    const policy = parseRegistrationPolicy({ dcrEnabled: true, dcrUnusedDays: 30 });
    const lines: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (line) => void lines.push(line) };

    const writer = await openStore(redis.url, prefix);
    const server = await serve(createRegistrationHandler({ store: writer, namespace, policy, logger }));
    let clientId: string;
    try {
      const reply = await register(server.port, VS_CODE);
      assert.equal(reply.status, 201, reply.text);
      clientId = JSON.parse(reply.text).client_id;
      assert.deepEqual(lines, [], 'Redis storage needs no warning about restarts');
    } finally {
      await server.close();
      await writer.close();
    }

    const ttl = await raw.ttl(`${prefix}:${namespace}:client:${clientId}`);
    assert.ok(ttl > 30 * 86_400 - 30 && ttl <= 30 * 86_400, `ttl ${ttl}`);

    const reader = await openStore(redis.url, prefix);
    try {
      await raw.expire(`${prefix}:${namespace}:client:${clientId}`, 3_600);
      const lookup = createRegisteredClientLookup(reader, namespace, policy.unusedSeconds);
      const metadata = await lookup.find(clientId);
      assert.ok(metadata, 'the registration outlived the store that wrote it');
      assert.equal(metadata.clientName, 'Visual Studio Code');
      assert.equal(redirectUriAllowed('http://127.0.0.1:41000/', metadata), true);
      assert.equal(redirectUriAllowed('https://vscode.dev/redirect', metadata), true);
      const touched = await raw.ttl(`${prefix}:${namespace}:client:${clientId}`);
      assert.ok(touched > 30 * 86_400 - 30, `the lookup restarted the unused period (ttl ${touched})`);
      assert.equal(await createRegisteredClientLookup(reader, 'ns-other', policy.unusedSeconds).find(clientId), undefined);
    } finally {
      await reader.close();
    }
  });

  it('limits a flood from one address across two instances sharing Redis', async () => {
    const prefix = `flood-${randomUUID().slice(0, 8)}`;
    const namespace = `ns-${randomUUID().slice(0, 8)}`;
    const policy = parseRegistrationPolicy({ dcrEnabled: true });
    const stores = await Promise.all([openStore(redis.url, prefix), openStore(redis.url, prefix)]);
    // One instant for the whole flood, so it cannot straddle a window boundary and pass by luck.
    const wallClock = Date.now();
    const windowStart = wallClock - (wallClock % 600_000);
    const now = () => windowStart + 1_000;
    const servers = await Promise.all(stores.map((store) => serve(createRegistrationHandler({ store, namespace, policy, logger: silentLogger, now }))));
    try {
      const statuses: number[] = [];
      for (let index = 0; index < 12; index += 1) statuses.push((await register(servers[index % 2]!.port, VS_CODE)).status);
      assert.deepEqual(statuses, [...Array<number>(10).fill(201), 429, 429]);
      const limited = await register(servers[0]!.port, VS_CODE);
      assert.equal(limited.retryAfter, '599');

      const counters = await raw.keys(`${prefix}:${namespace}:dcr-limit:*`);
      assert.equal(counters.length, 2, counters.join(', '));
      for (const counter of counters) {
        const ttl = await raw.ttl(counter);
        assert.ok(ttl > 0 && ttl <= 3_600, `${counter} ttl ${ttl}`);
        assert.ok(!counter.includes('127.0.0.1'), 'addresses are stored hashed');
      }
      assert.equal((await raw.keys(`${prefix}:${namespace}:client:*`)).length, 10);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('revokes an access token stored in Redis, seen by another instance', async () => {
    const prefix = `revoke-${randomUUID().slice(0, 8)}`;
    const namespace = `ns-${randomUUID().slice(0, 8)}`;
    const [issuing, revoking] = await Promise.all([openStore(redis.url, prefix), openStore(redis.url, prefix)]);
    const server = await serve(createRevocationHandler({ store: revoking, namespace, logger: silentLogger, audit: () => {} }));
    try {
      const token = newOpaqueToken();
      const key = { namespace, kind: RECORD_KINDS.access, id: sha256(token) };
      const grant: AccessGrant = {
        clientId: 'mcp-dyn-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB',
        client: 'codex',
        resource: 'http://127.0.0.1:1881/tools',
        scope: ['mcp'],
        identity: { subject: 'bob', groups: ['staff'] },
        session: '0123456789ab',
        expiresAt: Date.now() + 900_000,
      };
      await issuing.put(key, encodeRecord(grant), 900);
      const form = new URLSearchParams({ token, client_id: grant.clientId, token_type_hint: 'access_token' }).toString();
      const reply = await post(server.port, '/oauth/team/revoke', 'application/x-www-form-urlencoded', form);
      assert.equal(reply.status, 200);
      assert.equal(reply.text, '');
      assert.equal(await issuing.get(key), undefined);
    } finally {
      await server.close();
      await Promise.all([issuing.close(), revoking.close()]);
    }
  });
});
