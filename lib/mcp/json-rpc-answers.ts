import type { ServerResponse } from 'node:http';

/**
 * Writes a JSON-RPC answer from its result's JSON text: the bytes the SDK's transport writes for
 * it (`result`, then `jsonrpc` and `id`, as one JSON body).
 */
export function writeJsonRpcResult(res: ServerResponse, resultJson: string, id: string | number): void {
  writeJsonRpcText(res, jsonRpcResultText(resultJson, id));
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
export function writeJsonRpcError(res: ServerResponse, id: string | number, error: JsonRpcErrorFields): void {
  writeJsonRpcText(res, jsonRpcErrorText(id, error));
}

export interface JsonRpcErrorFields {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A JSON-RPC answer's text from its result's JSON text, in the SDK's key order (`result`, `jsonrpc`, `id`). */
export function jsonRpcResultText(resultJson: string, id: string | number): string {
  return `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** A JSON-RPC error answer's text, in the SDK's key order (`jsonrpc`, `id`, `error`). */
export function jsonRpcErrorText(id: string | number, error: JsonRpcErrorFields): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } });
}

/** One JSON-RPC message's text as the whole answer (HTTP 200, a JSON body of stated length), as the SDK writes it. */
export function writeJsonRpcText(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
