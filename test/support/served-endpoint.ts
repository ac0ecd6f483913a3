import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpEndpoint } from '../../lib/mcp/endpoint/mcp-endpoint.js';

/** An McpEndpoint behind its own node:http server on a free loopback port (unit tests of the endpoint). */
export interface ServedEndpoint {
  readonly endpoint: McpEndpoint;
  readonly server: Server;
  readonly port: number;
}

export async function serveEndpoint(endpoint: McpEndpoint): Promise<ServedEndpoint> {
  const server = createServer((req, res) => void endpoint.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint, server, port: (server.address() as AddressInfo).port };
}

/** Stops each endpoint (its pending calls end) and closes its server. */
export async function stopServed(served: readonly ServedEndpoint[]): Promise<void> {
  for (const { endpoint, server } of served) {
    await endpoint.stop('test over');
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
