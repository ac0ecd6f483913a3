import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ADMIN_TOKEN,
  TAB_MAIN,
  eachNodeOf,
  fixtureFlows,
  startFakeAdminApi,
  startGetFlowHarness,
  type FakeAdminApi,
  type GetFlowHarness,
} from '../support/flow-fixtures.js';
import { AdminClient } from '../../lib/admin/admin-client.js';
import { createGetFlowTool } from '../../lib/admin/get-flow-tool.js';
import { GET_FLOW_LIMITS } from '../../lib/admin/limits.js';
import { McpPaletteError } from '../../lib/core/errors.js';

const MIB = 1024 * 1024;

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

function expectNoToken(text: string, token: string = ADMIN_TOKEN): void {
  assert.ok(!text.includes(token), 'the admin token must never appear');
}

describe('AdminClient', () => {
  let api: FakeAdminApi;
  before(async () => {
    api = await startFakeAdminApi(fixtureFlows());
  });
  after(() => api.close());

  const signal = () => new AbortController().signal;

  it('reads /flow/:id and /flow/global with the bearer token, GET only', async () => {
    const client = new AdminClient({ adminBaseUrl: `${api.baseUrl}/`, token: ADMIN_TOKEN });
    const tab = (await client.readTab(TAB_MAIN, signal())) as { id: string; nodes: unknown[] };
    assert.equal(tab.id, TAB_MAIN);
    assert.ok(tab.nodes.length > 0);
    const global = (await client.readGlobal(signal())) as { id: string; subflows: unknown[] };
    assert.equal(global.id, 'global');
    assert.deepEqual(
      api.requests.slice(-2).map(({ method, url, authorized }) => ({ method, url, authorized })),
      [
        { method: 'GET', url: `/flow/${TAB_MAIN}`, authorized: true },
        { method: 'GET', url: '/flow/global', authorized: true },
      ],
    );
  });

  it('encodes the tab id into one path segment', async () => {
    const client = new AdminClient({ adminBaseUrl: api.baseUrl, token: ADMIN_TOKEN });
    assert.equal(await client.readTab('../flows', signal()), undefined);
    assert.equal(api.requests.at(-1)!.url, '/flow/..%2Fflows');
    assert.ok(!api.requests.some((request) => request.url === '/flows'));
  });

  it('answers undefined for a missing tab (HTTP 404)', async () => {
    const client = new AdminClient({ adminBaseUrl: api.baseUrl, token: ADMIN_TOKEN });
    assert.equal(await client.readTab('no-such-tab', signal()), undefined);
  });

  it('refuses to read "global" as a tab', async () => {
    const client = new AdminClient({ adminBaseUrl: api.baseUrl, token: ADMIN_TOKEN });
    const before = api.requests.length;
    await assert.rejects(client.readTab('global', signal()), (error: unknown) => error instanceof McpPaletteError && error.code === 'get_flow_not_found');
    assert.equal(api.requests.length, before);
  });

  it('reports a refused token as unauthorized, without echoing it', async () => {
    const wrong = 'wrong-token-value-123';
    const client = new AdminClient({ adminBaseUrl: api.baseUrl, token: wrong });
    await assert.rejects(client.readGlobal(signal()), (error: unknown) => {
      assert.ok(error instanceof McpPaletteError);
      assert.equal(error.code, 'get_flow_admin_unauthorized');
      assert.match(error.message, /HTTP 401/);
      expectNoToken(error.message, wrong);
      return true;
    });
  });

  it('does not follow redirects (the token stays with the configured origin)', async () => {
    const target = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const seen: (string | undefined)[] = [];
    const redirector = createServer((req, res) => {
      seen.push(req.url);
      res.writeHead(302, { location: `http://127.0.0.1:${(target.address() as AddressInfo).port}/elsewhere` }).end();
    });
    let targetHits = 0;
    target.on('request', () => (targetHits += 1));
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const client = new AdminClient({ adminBaseUrl: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`, token: ADMIN_TOKEN });
      await assert.rejects(client.readGlobal(signal()), /HTTP 302/);
      assert.equal(targetHits, 0);
      assert.deepEqual(seen, ['/flow/global']);
    } finally {
      redirector.closeAllConnections();
      target.closeAllConnections();
      await Promise.all([new Promise((resolve) => redirector.close(resolve)), new Promise((resolve) => target.close(resolve))]);
    }
  });

  it('names an unreachable admin API by its network code', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const client = new AdminClient({ adminBaseUrl: `http://127.0.0.1:${port}`, token: ADMIN_TOKEN });
    await assert.rejects(client.readGlobal(signal()), (error: unknown) => {
      assert.ok(error instanceof McpPaletteError);
      assert.equal(error.code, 'get_flow_admin_failed');
      assert.match(error.message, /ECONNREFUSED/);
      return true;
    });
  });

  it('refuses a response whose declared length is over the cap before reading it', async () => {
    api.behaviour = { kind: 'declared-oversize', bytes: 40 * MIB };
    try {
      const client = new AdminClient({ adminBaseUrl: api.baseUrl, token: ADMIN_TOKEN });
      await assert.rejects(client.readGlobal(signal()), (error: unknown) => error instanceof McpPaletteError && error.code === 'get_flow_admin_too_large');
    } finally {
      api.behaviour = { kind: 'normal' };
    }
  });

  it('applies a smaller cap when given one', async () => {
    const client = new AdminClient({ adminBaseUrl: api.baseUrl, token: ADMIN_TOKEN, maxResponseBytes: 1024 });
    await assert.rejects(client.readGlobal(signal()), /larger than/);
  });

  it('stops at a caller abort', async () => {
    api.behaviour = { kind: 'hang' };
    try {
      const client = new AdminClient({ adminBaseUrl: api.baseUrl, token: ADMIN_TOKEN });
      const controller = new AbortController();
      const arrived = api.nextArrival();
      const reading = client.readGlobal(controller.signal);
      // The caller gives up once the request is pending at the (hanging) server.
      await arrived;
      controller.abort();
      await assert.rejects(reading, (error: unknown) => error instanceof McpPaletteError && error.code === 'get_flow_cancelled');
    } finally {
      api.behaviour = { kind: 'normal' };
    }
  });
});

describe('get_flow admin API failures', () => {
  let flow: GetFlowHarness;
  before(async () => {
    flow = await startGetFlowHarness(fixtureFlows(), { adminTimeoutMs: 300 });
  });
  after(async () => {
    for (const request of flow.api.requests) {
      assert.equal(request.method, 'GET');
      assert.notEqual(request.url, '/flows');
    }
    await flow.close();
  });

  it('answers an isError result when the admin API refuses the token', async () => {
    const tool = createGetFlowTool({
      adminBaseUrl: flow.api.baseUrl,
      token: 'not-the-admin-token-xyz',
      eachNode: eachNodeOf(() => flow.api.config),
      deployGeneration: () => 1,
    });
    const { result } = await tool.runInProcess!({ id: TAB_MAIN }, new AbortController().signal);
    assert.equal(result.isError, true);
    assert.match(textOf(result), /refused the configured Admin Token \(HTTP 401\)/);
    expectNoToken(JSON.stringify(result), 'not-the-admin-token-xyz');
    assert.equal(flow.api.requests.at(-1)!.authorized, false);
    // The tab list never needs the admin API, so it still answers.
    const tabs = await tool.runInProcess!({}, new AbortController().signal);
    assert.equal(tabs.result.isError, undefined);
  });

  it('answers an isError result for HTTP 403 and 500', async () => {
    for (const [status, message] of [
      [403, /HTTP 403/],
      [500, /answered \/flow\/global with HTTP 500/],
    ] as const) {
      flow.api.behaviour = { kind: 'status', status };
      try {
        const { result } = await flow.call({ mode: 'subflows' });
        assert.equal(result.isError, true);
        assert.match(textOf(result), message);
        expectNoToken(textOf(result));
      } finally {
        flow.api.behaviour = { kind: 'normal' };
      }
    }
  });

  it('times out an admin API that never answers', async () => {
    flow.api.behaviour = { kind: 'hang' };
    try {
      const { result, answer } = await flow.call({ id: TAB_MAIN });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /did not answer \/flow\/tab-main within 0\.3 s/);
      assert.equal(answer.mode, 'tab_summary');
    } finally {
      flow.api.behaviour = { kind: 'normal' };
    }
  });

  it('uses a 15 s admin timeout and a longer tool timeout by default', () => {
    assert.equal(GET_FLOW_LIMITS.adminTimeoutMs, 15_000);
    const tool = createGetFlowTool({ adminBaseUrl: 'http://127.0.0.1:1', token: 't', eachNode: () => undefined, deployGeneration: () => 0 });
    assert.ok(tool.timeoutMs > GET_FLOW_LIMITS.adminTimeoutMs);
    assert.ok(flow.tool.timeoutMs > 300);
  });

  it('aborts a response that streams past 32 MiB', async () => {
    flow.api.behaviour = { kind: 'oversize', bytes: 96 * MIB };
    // Its own tool with the default read timeout: streaming 32 MiB can take longer than this suite's 0.3 s.
    const tool = createGetFlowTool({
      adminBaseUrl: flow.api.baseUrl,
      token: ADMIN_TOKEN,
      eachNode: eachNodeOf(() => flow.api.config),
      deployGeneration: () => 1,
    });
    try {
      const closed = flow.api.nextStreamClosed();
      const { result } = await tool.runInProcess!({ mode: 'subflows' }, new AbortController().signal);
      assert.equal(result.isError, true);
      assert.match(textOf(result), /larger than 32 MiB/);
      // Reading stopped near the cap: once the connection has closed, the server had pushed far less than the whole body.
      await closed;
      assert.ok(flow.api.streamed() < 64 * MIB, `${flow.api.streamed()} bytes streamed`);
    } finally {
      flow.api.behaviour = { kind: 'normal' };
    }
  });

  it('reports a cancelled call', async () => {
    flow.api.behaviour = { kind: 'hang' };
    try {
      const controller = new AbortController();
      const arrived = flow.api.nextArrival();
      const call = flow.call({ mode: 'subflows' }, controller.signal);
      await arrived;
      controller.abort();
      const { result } = await call;
      assert.equal(result.isError, true);
      assert.match(textOf(result), /cancelled/);
    } finally {
      flow.api.behaviour = { kind: 'normal' };
    }
  });

  it('answers normally again once the admin API recovers', async () => {
    const { result, data } = await flow.call({ mode: 'subflows' });
    assert.equal(result.isError, undefined);
    assert.equal(data.mode, 'subflows');
  });
});
