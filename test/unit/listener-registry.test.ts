import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { McpPaletteError } from '../../lib/core/errors.js';
import { ListenerRegistry, type MountedRoute, type RouteHandler } from '../../lib/http/listener-registry.js';
import { freePort } from '../support/ports.js';

const HOST = '127.0.0.1';

function listen(server: NetServer, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function close(server: NetServer): Promise<void> {
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

// Port 0 would give every mount its own port, so sharing needs a concrete free port (freePort).

/** True when a fresh server can take the port, i.e. the registry let it go. */
async function portIsFree(port: number): Promise<boolean> {
  const probe = createNetServer();
  try {
    await listen(probe, port);
  } catch {
    return false;
  }
  await close(probe);
  return true;
}

function answer(body: string): RouteHandler {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body);
  };
}

async function get(port: number, path: string): Promise<{ status: number; body: string; type: string | null }> {
  const response = await fetch(`http://${HOST}:${port}${path}`);
  return { status: response.status, body: await response.text(), type: response.headers.get('content-type') };
}

/** Runs `check` while `route` is mounted, and unmounts it afterwards whatever the check found. */
async function whileMounted(route: MountedRoute, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } finally {
    await route.unmount();
  }
}

function hasCode(code: string) {
  return (error: unknown) => error instanceof McpPaletteError && error.code === code;
}

describe('ListenerRegistry', () => {
  it('serves two paths on one port, each with its own handler', async () => {
    const registry = new ListenerRegistry();
    const port = await freePort();
    const a = await registry.mount({ port, host: HOST }, '/a', answer('from a'));
    const b = await registry.mount({ port, host: HOST }, '/b', answer('from b'));
    try {
      assert.equal(registry.boundPort(port), port);
      assert.deepEqual(await get(port, '/a'), { status: 200, body: 'from a', type: 'text/plain' });
      assert.deepEqual(await get(port, '/b'), { status: 200, body: 'from b', type: 'text/plain' });
      assert.equal((await get(port, '/a?session=1')).body, 'from a', 'the query string is not part of the path');
    } finally {
      await a.unmount();
      await b.unmount();
    }
  });

  it('answers 404 JSON for a path nobody mounted', async () => {
    const registry = new ListenerRegistry();
    const port = await freePort();
    const route = await registry.mount({ port, host: HOST }, '/mcp', answer('ok'));
    await whileMounted(route, async () => {
      const response = await get(port, '/other');
      assert.equal(response.status, 404);
      assert.equal(response.type, 'application/json');
      assert.deepEqual(JSON.parse(response.body), { error: 'not_found' });
    });
  });

  it('answers 500 JSON without details when a handler throws', async () => {
    const registry = new ListenerRegistry();
    const port = await freePort();
    const route = await registry.mount({ port, host: HOST }, '/boom', () => {
      throw new Error('secret internals');
    });
    await whileMounted(route, async () => {
      const response = await get(port, '/boom');
      assert.equal(response.status, 500);
      assert.deepEqual(JSON.parse(response.body), { error: 'internal_error' });
    });
  });

  it('refuses a second owner of the same path with path_conflict and keeps the first', async () => {
    const registry = new ListenerRegistry();
    const port = await freePort();
    const first = await registry.mount({ port, host: HOST }, '/mcp', answer('first'));
    await whileMounted(first, async () => {
      await assert.rejects(registry.mount({ port, host: HOST }, '/mcp', answer('second')), hasCode('path_conflict'));
      assert.equal((await get(port, '/mcp')).body, 'first');
    });
  });

  it('refuses the same port on a different host with bind_mismatch', async () => {
    const registry = new ListenerRegistry();
    const port = await freePort();
    const route = await registry.mount({ port, host: '127.0.0.1' }, '/a', answer('a'));
    await whileMounted(route, async () => {
      await assert.rejects(registry.mount({ port, host: 'localhost' }, '/b', answer('b')), (error: unknown) => {
        return hasCode('bind_mismatch')(error) && (error as McpPaletteError).params.existing === '127.0.0.1';
      });
    });
  });

  it('reports port_in_use when another server holds the port, and mounts once it is gone', async () => {
    const registry = new ListenerRegistry();
    const port = await freePort();
    const blocker = createNetServer();
    await listen(blocker, port);
    try {
      await assert.rejects(registry.mount({ port, host: HOST }, '/mcp', answer('x')), (error: unknown) => {
        return hasCode('port_in_use')(error) && (error as McpPaletteError).params.port === port;
      });
      assert.equal(registry.boundPort(port), undefined, 'the failed listener is forgotten');
    } finally {
      await close(blocker);
    }
    const route = await registry.mount({ port, host: HOST }, '/mcp', answer('after'));
    await whileMounted(route, async () => {
      assert.equal((await get(port, '/mcp')).body, 'after');
    });
  });

  it('keeps serving the other routes after one unmounts, and frees the port after the last', async () => {
    const registry = new ListenerRegistry();
    const port = await freePort();
    const a = await registry.mount({ port, host: HOST }, '/a', answer('a'));
    const b = await registry.mount({ port, host: HOST }, '/b', answer('b'));

    await a.unmount();
    assert.equal((await get(port, '/a')).status, 404);
    assert.equal((await get(port, '/b')).body, 'b');
    assert.equal(await portIsFree(port), false, 'the port is still held while /b is mounted');

    await b.unmount();
    assert.equal(registry.boundPort(port), undefined);
    assert.equal(await portIsFree(port), true);
  });

  it('makes unmount idempotent, and a stale unmount does not remove a newer route on the same path', async () => {
    const registry = new ListenerRegistry();
    const port = await freePort();
    const old = await registry.mount({ port, host: HOST }, '/mcp', answer('old'));
    await old.unmount();
    await old.unmount();

    const current = await registry.mount({ port, host: HOST }, '/mcp', answer('new'));
    await whileMounted(current, async () => {
      await old.unmount();
      assert.equal((await get(port, '/mcp')).body, 'new');
    });
    assert.equal(await portIsFree(port), true);
  });

  it('remounts right after an unmount that has not finished closing', async () => {
    const registry = new ListenerRegistry();
    const port = await freePort();
    const first = await registry.mount({ port, host: HOST }, '/mcp', answer('first'));
    assert.equal((await get(port, '/mcp')).body, 'first');

    const closing = first.unmount();
    const second = await registry.mount({ port, host: HOST }, '/mcp', answer('second'));
    await whileMounted(second, async () => {
      await closing;
      assert.equal((await get(port, '/mcp')).body, 'second');
    });
  });

  it('remounts after an awaited unmount', async () => {
    const registry = new ListenerRegistry();
    const port = await freePort();
    const first = await registry.mount({ port, host: HOST }, '/mcp', answer('first'));
    await first.unmount();
    const second = await registry.mount({ port, host: HOST }, '/mcp', answer('second'));
    await whileMounted(second, async () => {
      assert.equal((await get(port, '/mcp')).body, 'second');
    });
  });

  // The bind name is resolved through the registry's resolver, so a test can say what a name such as
  // mcp.localhost resolves to, the way a hosts file or a DNS server could.
  it('serves a loopback-only route when the bind name resolved to a loopback address', async () => {
    const registry = new ListenerRegistry({ resolveHost: async (host) => (host === 'mcp.localhost' ? '127.0.0.1' : host) });
    const port = await freePort();
    const route = await registry.mount({ port, host: 'mcp.localhost' }, '/mcp', answer('local'), { loopbackOnly: true });
    await whileMounted(route, async () => {
      assert.equal((await get(port, '/mcp')).body, 'local');
    });
  });

  it('refuses a loopback-only route when the bind name resolved to a non-loopback address, and lets the port go', async () => {
    const registry = new ListenerRegistry({ resolveHost: async (host) => (host === 'mcp.localhost' ? '0.0.0.0' : host) });
    const port = await freePort();
    await assert.rejects(
      // A mount that wrongly succeeds is taken down again, so the failure is reported, not a hang.
      registry.mount({ port, host: 'mcp.localhost' }, '/mcp', answer('must not be served'), { loopbackOnly: true }).then(async (route) => {
        await route.unmount();
        return route;
      }),
      (error: unknown) => {
        assert.ok(error instanceof McpPaletteError && error.code === 'local_bound_not_loopback', String(error));
        assert.deepEqual(error.params, { host: 'mcp.localhost', address: '0.0.0.0' });
        return true;
      },
    );
    assert.equal(await portIsFree(port), true, 'the listener opened only for this route is closed again');
  });

  it('keeps a listener that other routes use when it refuses a loopback-only route on it', async () => {
    const registry = new ListenerRegistry({ resolveHost: async (host) => (host === 'mcp.localhost' ? '0.0.0.0' : host) });
    const port = await freePort();
    const open = await registry.mount({ port, host: 'mcp.localhost' }, '/open', answer('open'));
    await whileMounted(open, async () => {
      const local = registry.mount({ port, host: 'mcp.localhost' }, '/local', answer('local'), { loopbackOnly: true });
      await assert.rejects(local.then(async (route) => route.unmount()), hasCode('local_bound_not_loopback'));
      assert.equal((await get(port, '/open')).body, 'open');
      assert.equal((await get(port, '/local')).status, 404);
    });
  });

  it('reports listen_failed when the bind name does not resolve', async () => {
    const registry = new ListenerRegistry({
      resolveHost: async (host) => {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    const port = await freePort();
    await assert.rejects(registry.mount({ port, host: 'nowhere.localhost' }, '/mcp', answer('x')), hasCode('listen_failed'));
    assert.equal(await portIsFree(port), true);
  });
});

