import type { ServerResponse } from 'node:http';

/**
 * Writes a JSON-RPC answer from its result's JSON text: the bytes the SDK's transport writes for
 * it (`result`, then `jsonrpc` and `id`, as one JSON body).
 */
export function writeJsonRpcResult(res: ServerResponse, resultJson: string, id: string | number): void {
  const body = `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Writes a JSON-RPC answer whose bytes up to the id were encoded once (`{"result":…,"jsonrpc":"2.0","id":`):
 * the same bytes as `writeJsonRpcResult` writes, in two pieces sent together.
 */
export function writeJsonRpcAnswerFromHead(res: ServerResponse, head: Buffer, id: string | number): void {
  const tail = `${JSON.stringify(id)}}`;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': head.length + Buffer.byteLength(tail) });
  res.cork();
  res.write(head);
  res.end(tail);
  res.uncork();
}

/** Writes a JSON-RPC error answer to a request, in the SDK's shape (HTTP 200: the exchange itself worked). */
export function writeJsonRpcError(res: ServerResponse, id: string | number, error: { readonly code: number; readonly message: string; readonly data?: unknown }): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
