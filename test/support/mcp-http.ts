import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export type Era = 'legacy' | 'modern';

/** The official MCP client, negotiating the 2025 handshake (`legacy`) or 2026-07-28 (`modern`). */
export async function connect(url: string, era: Era): Promise<Client> {
  const client = new Client({ name: 'runtime-test', version: '1.0.0' }, { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/**
 * Runs `use` with the client `opening` resolves to, and closes that client afterwards whatever the test
 * found: the try/finally around every client a test opens.
 */
export async function withClient<C extends { close(): Promise<unknown> }, T>(opening: Promise<C>, use: (client: C) => Promise<T>): Promise<T> {
  const client = await opening;
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/**
 * A tools-list-changed stream, once the server takes one again after a stream closed: the server hears
 * the hang-up a moment after the client closes, so this retries for up to 5 s; undefined if never.
 */
export async function listenOnceAccepted(client: Client): Promise<Awaited<ReturnType<Client['listen']>> | undefined> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const stream = await client.listen({ toolsListChanged: true }).catch(() => undefined);
    if (stream) return stream;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  json(): any;
}

/**
 * A raw HTTP exchange with full control of headers (fetch cannot set Host), for the protocol edges
 * the official client never produces.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; hangUp?: AbortSignal } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'POST', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => parseBody(body) });
      });
    });
    req.on('error', reject);
    // A client that gives up when the test says so: the socket closes with the call still pending.
    options.hangUp?.addEventListener('abort', () => req.destroy(new Error('client gave up')), { once: true });
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export function postJsonRpc(url: string, message: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(url, { headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25', ...headers }, body: JSON.stringify(message) });
}

/** Polls until the endpoint accepts connections (endpoints start just after "Started flows"). */
export async function waitForEndpoint(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await postJsonRpc(url, { jsonrpc: '2.0', id: 0, method: 'ping' });
      if (response.status !== 404) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`endpoint ${url} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A response body as JSON: plain, or the data line of an SSE-framed answer; other text as it is, empty as undefined. */
export function parseBody(body: string): any {
  const trimmed = body.trim();
  if (trimmed === '') return undefined;
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return JSON.parse(trimmed);
  const data = trimmed.split('\n').find((line) => line.startsWith('data:'));
  return data ? JSON.parse(data.slice(5)) : trimmed;
}

/** The JSON-RPC error a request through the official client ends with; fails the test when it succeeds or fails otherwise. */
export async function protocolError(promise: Promise<unknown>): Promise<ProtocolError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProtocolError, `expected a ProtocolError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the request to fail');
}
