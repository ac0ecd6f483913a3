import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, mediaTypeOf, readBody } from './read-body.js';
import { sendJsonRpcError } from './responses.js';

export type JsonRpcBody = { readonly body: unknown } | { readonly reject: (res: ServerResponse) => void };

/**
 * Reads and parses an MCP POST body once, with the Streamable HTTP transport's answers for what is
 * wrong with it (415, 413, parse error). Everything after — access checks, the SDK — uses the
 * parsed value instead of reading the stream again.
 */
export async function readJsonRpcBody(req: IncomingMessage, maxBytes: number): Promise<JsonRpcBody> {
  if (mediaTypeOf(req) !== 'application/json') {
    req.resume();
    return { reject: (res) => sendJsonRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json') };
  }
  try {
    const raw = await readBody(req, maxBytes);
    return { body: JSON.parse(raw.toString('utf8')) };
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      return { reject: (res) => sendJsonRpcError(res, 413, -32000, `Payload Too Large: Request body must not exceed ${error.limit} bytes`) };
    }
    return { reject: (res) => sendJsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON') };
  }
}
