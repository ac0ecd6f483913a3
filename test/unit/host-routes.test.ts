import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { McpPaletteError } from '../../lib/core/errors.js';
import { HostRouteTable } from '../../lib/http/host-routes.js';
import { BodyTooLargeError, readBody } from '../../lib/http/read-body.js';
import type { RouteHandler } from '../../lib/http/route-site.js';
import { nodeRedHttpServer } from '../../nodes/mcp-runtime/node-red-http.js';

// A real Express app stands in for Node-RED's httpNode (Node-RED 4 ships Express 4, as here).

function answer(body: string): RouteHandler {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body);
  };
}

async function serve(root: string, nodeApp: express.Express): Promise<{ server: Server; url: string }> {
  const app = express();
  app.use(root, nodeApp);
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${root === '/' ? '' : root}` };
}

function stackOf(app: express.Express): unknown[] {
  return (app as unknown as { _router: { stack: unknown[] } })._router.stack;
}

function setup() {
  const nodeApp = express();
  let installs = 0;
  const table = new HostRouteTable(nodeRedHttpServer(nodeApp, '/', () => (installs += 1)));
  return { nodeApp, table, installs: () => installs };
}

function isCode(code: string) {
  return (error: unknown) => error instanceof McpPaletteError && error.code === code;
}

describe('HostRouteTable on an Express app (one-port mode)', () => {
  it('serves its paths and passes every other path to the app, under the app\'s mount root', async () => {
    const { nodeApp, table } = setup();
    nodeApp.get('/hello', (_req, res) => res.send('from http in'));
    await table.mount('/tools', answer('from mcp'));
    const { server, url } = await serve('/api', nodeApp);
    try {
      assert.equal(await (await fetch(`${url}/tools?x=1`, { method: 'POST' })).text(), 'from mcp');
      assert.equal(await (await fetch(`${url}/hello`)).text(), 'from http in');
      assert.equal((await fetch(`${url}/nothing`)).status, 404);
    } finally {
      server.close();
    }
  });

  it('installs one dispatcher, in front of routes registered before it, however often routes come and go', async () => {
    const { nodeApp, table, installs } = setup();
    nodeApp.post('/other', (_req, res) => res.send('other'));
    const layersBefore = stackOf(nodeApp).length;
    for (let deploy = 0; deploy < 5; deploy += 1) {
      const route = await table.mount('/tools', answer(`deploy ${deploy}`));
      await route.unmount();
    }
    const last = await table.mount('/tools', answer('last'));
    assert.equal(installs(), 1);
    assert.equal(table.dispatcherInstalled, true);
    // The dispatcher, and the body holder (here the app is its own root: it is not mounted yet).
    assert.equal(stackOf(nodeApp).length, layersBefore + 2);
    const { server, url } = await serve('/', nodeApp);
    try {
      assert.equal(await (await fetch(`${url}/tools`, { method: 'POST' })).text(), 'last');
      await last.unmount();
      assert.equal((await fetch(`${url}/tools`, { method: 'POST' })).status, 404, 'an unmounted path is not served by a stale route');
    } finally {
      server.close();
    }
  });

  it('refuses a path an app route answers (any method, patterns too), naming that route', async () => {
    const { nodeApp, table } = setup();
    nodeApp.post('/tools', (_req, res) => res.send('http in'));
    nodeApp.get('/items/:id', (_req, res) => res.send('item'));
    await assert.rejects(table.mount('/tools', answer('mcp')), (error: unknown) => isCode('node_red_route_conflict')(error) && (error as McpPaletteError).params['route'] === 'POST /tools');
    await assert.rejects(table.mount('/items/abc', answer('mcp')), (error: unknown) => isCode('node_red_route_conflict')(error) && (error as McpPaletteError).params['route'] === 'GET /items/:id');
    const { server, url } = await serve('/', nodeApp);
    try {
      assert.equal(await (await fetch(`${url}/tools`, { method: 'POST' })).text(), 'http in', 'the http in route keeps its path');
    } finally {
      server.close();
    }
  });

  it('refuses a path of the editor when it shares the root (its own stack and its sub-apps\' paths)', async () => {
    const nodeApp = express();
    const adminApp = express();
    adminApp.post('/inject/:id', (_req, res) => res.sendStatus(200));
    const table = new HostRouteTable(nodeRedHttpServer(nodeApp, '/', () => {}, { app: adminApp, root: '/' }));
    await assert.rejects(table.mount('/flows', answer('mcp')), (error: unknown) => isCode('node_red_route_conflict')(error) && (error as McpPaletteError).params['route'] === "the editor's /flows routes");
    await assert.rejects(table.mount('/inject/x', answer('mcp')), (error: unknown) => isCode('node_red_route_conflict')(error) && (error as McpPaletteError).params['route'] === "the editor's POST /inject/:id");
    await table.mount('/tools', answer('mcp'));
    // With the editor under its own root, its paths are free on httpNode.
    const apart = new HostRouteTable(nodeRedHttpServer(express(), '/', () => {}, { app: adminApp, root: '/admin/' }));
    await apart.mount('/flows', answer('mcp'));
  });

  it('refuses a path it already serves, and ignores Node-RED\'s OPTIONS * pre-flight route (httpNodeCors)', async () => {
    const { nodeApp, table } = setup();
    nodeApp.options('*', (_req, res) => res.sendStatus(204));
    await table.mount('/tools', answer('mcp'));
    await assert.rejects(table.mount('/tools', answer('again')), isCode('node_red_path_conflict'));
  });

  it('gives a path up to a route a later deploy added, and tells the route\'s owner', async () => {
    const { nodeApp, table } = setup();
    const yielded: McpPaletteError[] = [];
    await table.mount('/tools', answer('mcp'), { onYield: (error) => yielded.push(error) });
    await table.mount('/kept', answer('kept'));
    nodeApp.post('/tools', (_req, res) => res.send('http in'));
    table.recheck();
    assert.equal(yielded.length, 1);
    assert.equal(yielded[0]?.code, 'node_red_route_conflict');
    const { server, url } = await serve('/', nodeApp);
    try {
      assert.equal(await (await fetch(`${url}/tools`, { method: 'POST' })).text(), 'http in');
      assert.equal(await (await fetch(`${url}/kept`, { method: 'POST' })).text(), 'kept');
    } finally {
      server.close();
    }
  });

  it('refuses to serve when the app\'s routes cannot be read (a clash could not be ruled out)', async () => {
    const table = new HostRouteTable({ root: '/', install: () => {}, routeAnswering: () => { throw new Error('no stack'); } });
    await assert.rejects(table.mount('/tools', answer('mcp')), isCode('node_red_routes_unreadable'));
  });

  it('reads the body before a body parser of the server (Node-RED\'s admin app on the same root) can', async () => {
    const nodeApp = express();
    const server = express();
    server.use(express.json({ limit: '5mb' }));
    server.use(express.urlencoded({ extended: true }));
    server.use('/', nodeApp);
    const table = new HostRouteTable(nodeRedHttpServer(nodeApp, '/', () => {}));
    await table.mount('/raw', async (req, res) => {
      try {
        const body = await readBody(req, 256 * 1024);
        res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
      } catch (error) {
        res.writeHead(error instanceof BodyTooLargeError ? 413 : 500).end();
      }
    });
    const http = createServer(server);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    try {
      const json = '{ "jsonrpc" : "2.0",  "id": 1 }';
      assert.equal(await (await fetch(`${url}/raw`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json })).text(), json);
      const form = 'a=1&a=2&b=%20';
      assert.equal(await (await fetch(`${url}/raw`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form })).text(), form);
      const big = JSON.stringify({ text: 'x'.repeat(300 * 1024) });
      assert.equal((await fetch(`${url}/raw`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big })).status, 413);
    } finally {
      http.close();
    }
  });

  it('answers 500 without internals when a handler throws', async () => {
    const { nodeApp, table } = setup();
    await table.mount('/boom', () => { throw new Error('secret detail'); });
    const { server, url } = await serve('/', nodeApp);
    try {
      const response = await fetch(`${url}/boom`, { method: 'POST' });
      assert.equal(response.status, 500);
      assert.doesNotMatch(await response.text(), /secret/);
    } finally {
      server.close();
    }
  });
});
