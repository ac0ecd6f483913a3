import type { ServerResponse } from 'node:http';

/**
 * Every JSON answer the palette writes itself. `no-store` because these carry per-request state;
 * no CORS headers on purpose: MCP clients are not browsers, and a browser page must not call in.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** A JSON-RPC error outside any request context (`id: null`), as the Streamable HTTP transport does. */
export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}
