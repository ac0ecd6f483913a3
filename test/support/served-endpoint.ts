import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalAccess } from '../../lib/access/local-access.js';
import { silentLogger } from '../../lib/core/logger.js';
import type { McpEndpointOptions } from '../../lib/mcp/endpoint/endpoint-options.js';
import { McpEndpoint } from '../../lib/mcp/endpoint/mcp-endpoint.js';

/** What these tests serve over HTTP: an McpEndpoint, or anything else that handles requests and stops. */
interface Handling {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  stop(reason: string): Promise<unknown>;
}

/** An endpoint on /mcp with Local access (loopback callers only) that logs nothing unless given a logger. */
export function localEndpoint(options: Omit<McpEndpointOptions, 'path' | 'access' | 'logger'> & Partial<Pick<McpEndpointOptions, 'logger'>>): McpEndpoint {
  return new McpEndpoint({ path: '/mcp', access: createLocalAccess(), logger: silentLogger, ...options });
}

/** An endpoint behind a real node:http server on a free loopback port. */
export interface ServedEndpoint {
  readonly port: number;
  readonly server: Server;
  /** Stops the endpoint (as a deploy would), then closes the server. */
  close(): Promise<void>;
}

export async function serveEndpoint(endpoint: Handling): Promise<ServedEndpoint> {
  const server = createServer((req, res) => void endpoint.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    server,
    async close() {
      await endpoint.stop('test over');
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The `_meta` a 2026-07-28 request carries instead of an initialize handshake: the revision, the
 * client (named `test` unless said) and its capabilities, with `more` entries (a log level) after them.
 */
export function modernMeta(capabilities: Record<string, unknown> = {}, more: Record<string, unknown> = {}, clientName = 'test'): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    ...more,
  };
}
