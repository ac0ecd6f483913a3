import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
export interface ServedEndpoint<T extends Handling = McpEndpoint> {
  readonly endpoint: T;
  readonly port: number;
  readonly server: Server;
  /** Stops the endpoint (as a deploy would), then closes the server. */
  close(): Promise<void>;
}

export async function serveEndpoint<T extends Handling>(endpoint: T): Promise<ServedEndpoint<T>> {
  const server = createServer((req, res) => void endpoint.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint,
    port: (server.address() as AddressInfo).port,
    server,
    close: () => stopServed([{ endpoint, server }]),
  };
}

/** Stops each endpoint (its pending calls end) and closes its server. */
export async function stopServed(served: readonly { readonly endpoint: Handling; readonly server: Server }[]): Promise<void> {
  for (const { endpoint, server } of served) {
    await endpoint.stop('test over');
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
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

/** A request as a test sends it to /mcp: its JSON-RPC body and its headers. */
export interface SentRequest {
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

/**
 * A whole answer as text: status, headers and the body's bytes. Left out: the date, and how the body
 * is framed (the SDK's Node adapter streams a 2026-07-28 answer in chunks; a direct answer, like
 * a direct tool call's, states its length).
 */
export function rawAnswer(port: number, sent: SentRequest): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', agent: false, headers: sent.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const headers = Object.entries(res.headers).filter(([name]) => !['date', 'content-length', 'transfer-encoding'].includes(name)).map(([name, value]) => `${name}: ${String(value)}`);
        resolve(`${res.statusCode}\n${headers.join('\n')}\n\n${text}`);
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(sent.body));
  });
}
