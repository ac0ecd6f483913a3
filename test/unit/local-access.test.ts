import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { createLocalAccess } from '../../lib/access/local-access.js';
import type { AccessDecision } from '../../lib/access/access-policy.js';

function request(headers: { host?: string; origin?: string }): IncomingMessage {
  return { headers } as unknown as IncomingMessage;
}

/** Just enough of a ServerResponse to see what a refusal writes. */
function recordingResponse() {
  const written: { status?: number; headers?: Record<string, unknown>; body?: string } = {};
  const res = {
    writeHead(status: number, headers: Record<string, unknown>) {
      written.status = status;
      written.headers = headers;
      return this;
    },
    end(body?: string) {
      written.body = body;
      return this;
    },
  } as unknown as ServerResponse;
  return { res, written };
}

async function check(headers: { host?: string; origin?: string }, extra: string[] = []): Promise<AccessDecision> {
  return createLocalAccess(extra).check(request(headers));
}

async function assertAllowed(headers: { host?: string; origin?: string }, extra: string[] = []): Promise<void> {
  const decision = await check(headers, extra);
  assert.equal(decision.allowed, true, `expected ${JSON.stringify(headers)} to be allowed`);
}

async function assertRefused(headers: { host?: string; origin?: string }, extra: string[] = []): Promise<void> {
  const decision = await check(headers, extra);
  assert.equal(decision.allowed, false, `expected ${JSON.stringify(headers)} to be refused`);
}

describe('createLocalAccess', () => {
  it('lets an allowed caller in anonymously', async () => {
    const policy = createLocalAccess();
    const decision = await policy.check(request({ host: 'localhost:1881' }));
    assert.ok(decision.allowed);
    assert.deepEqual(decision.caller, {});
  });

  for (const host of ['localhost:1881', '127.0.0.1:1881', '[::1]:1881', 'localhost', 'LOCALHOST:1881']) {
    it(`allows Host ${host}`, async () => {
      await assertAllowed({ host });
    });
  }

  for (const host of ['evil.com', 'evil.com:1881', 'localhost.evil.com:1881', '10.0.0.1:1881']) {
    it(`refuses Host ${host}`, async () => {
      await assertRefused({ host });
    });
  }

  it('refuses a request without Host', async () => {
    await assertRefused({});
  });

  for (const origin of ['http://localhost:3000', 'http://127.0.0.1:1881', 'http://[::1]:1881', 'https://localhost']) {
    it(`allows Origin ${origin}`, async () => {
      await assertAllowed({ host: 'localhost:1881', origin });
    });
  }

  for (const origin of ['http://evil.com', 'null', 'http://localhost.evil.com', 'not a url']) {
    it(`refuses Origin ${origin}`, async () => {
      await assertRefused({ host: 'localhost:1881', origin });
    });
  }

  it('allows extra hostnames for Host and Origin, and only when given', async () => {
    await assertRefused({ host: 'mcp.test:1881' });
    await assertAllowed({ host: 'mcp.test:1881' }, ['mcp.test']);
    await assertAllowed({ host: 'mcp.test:1881', origin: 'https://mcp.test' }, ['mcp.test']);
    await assertRefused({ host: 'other.test:1881' }, ['mcp.test']);
  });

  it('allows an extra IPv6 hostname given without brackets', async () => {
    await assertRefused({ host: '[::2]:1881' });
    await assertAllowed({ host: '[::2]:1881', origin: 'http://[::2]:1881' }, ['::2']);
  });

  it('rejects a bad Host with 403 and a JSON-RPC error', async () => {
    const decision = await check({ host: 'evil.com' });
    assert.ok(!decision.allowed);
    const { res, written } = recordingResponse();
    decision.reject(res);
    assert.equal(written.status, 403);
    assert.equal(written.headers?.['content-type'], 'application/json');
    const body = JSON.parse(written.body ?? '');
    assert.deepEqual(body, { jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: Host header is not a local address' }, id: null });
  });

  it('marks a refusal as forbidden and hands over the body of a refused POST, so telemetry can count a refused tools/call', async () => {
    const message = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'anything', arguments: {} } };
    const post = Object.assign(Readable.from([Buffer.from(JSON.stringify(message))]), {
      method: 'POST',
      headers: { host: 'localhost:1881', origin: 'http://evil.com', 'content-type': 'application/json' },
    }) as unknown as IncomingMessage;
    const decision = await createLocalAccess().check(post);
    assert.ok(!decision.allowed);
    assert.equal(decision.refusal, 'forbidden');
    assert.deepEqual(decision.parsedBody, message);
    const get = await check({ host: 'evil.com' });
    assert.ok(!get.allowed);
    assert.equal(get.refusal, 'forbidden');
    assert.equal(get.parsedBody, undefined);
  });

  it('rejects a bad Origin with 403 and a JSON-RPC error about the Origin', async () => {
    const decision = await check({ host: 'localhost:1881', origin: 'http://evil.com' });
    assert.ok(!decision.allowed);
    const { res, written } = recordingResponse();
    decision.reject(res);
    assert.equal(written.status, 403);
    const body = JSON.parse(written.body ?? '');
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32000);
    assert.match(body.error.message, /Origin/);
  });
});

describe('createLocalAccess on a server this package did not bind (loopbackPeersOnly)', () => {
  const from = (remoteAddress: string | undefined, host = 'localhost:1880') =>
    ({ headers: { host }, socket: { remoteAddress } }) as unknown as IncomingMessage;
  const policy = createLocalAccess([], { loopbackPeersOnly: true });

  for (const peer of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
    it(`lets a loopback peer ${peer} in`, async () => {
      assert.equal((await policy.check(from(peer))).allowed, true);
    });
  }

  for (const peer of ['172.17.0.1', '192.168.1.20', '::ffff:10.0.0.2', undefined]) {
    it(`refuses peer ${String(peer)} even with Host localhost, with a 403 JSON-RPC error`, async () => {
      const decision = await policy.check(from(peer));
      assert.equal(decision.allowed, false);
      const { res, written } = recordingResponse();
      if (!decision.allowed) decision.reject(res);
      assert.equal(written.status, 403);
      assert.match(String(written.body), /this machine only/);
    });
  }

  it('still checks Host for a loopback peer', async () => {
    assert.equal((await policy.check(from('127.0.0.1', 'evil.com'))).allowed, false);
  });
});
