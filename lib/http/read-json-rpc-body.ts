import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULTS } from '../core/defaults.js';
import { isPlainObject } from '../core/is-plain-object.js';
import { BodyTooLargeError, mediaTypeOf, readBody } from './read-body.js';
import { sendJsonRpcError } from './responses.js';

export type JsonRpcBody = { readonly body: unknown } | { readonly reject: (res: ServerResponse) => void };

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Reads and parses an MCP POST body once, with the Streamable HTTP transport's answers for what is
 * wrong with it (415, 413, parse error). It also refuses, with 400 / -32600 before anything else
 * sees it, a body nested deeper than `maxDepth` (a batch's own array counts) and one that is
 * neither a JSON-RPC message object nor a flat batch of them: a batch nested thousands of levels
 * deep used to reach the SDK and end in a 500. Everything after — access checks, the SDK — uses
 * the parsed value instead of reading the stream again.
 */
export async function readJsonRpcBody(req: IncomingMessage, maxBytes: number, maxDepth: number = DEFAULTS.maxRequestJsonDepth): Promise<JsonRpcBody> {
  if (mediaTypeOf(req) !== 'application/json') {
    req.resume();
    return { reject: (res) => sendJsonRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json') };
  }
  let raw: Buffer;
  try {
    raw = await readBody(req, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      return { reject: (res) => sendJsonRpcError(res, 413, -32000, `Payload Too Large: Request body must not exceed ${error.limit} bytes`) };
    }
    return { reject: (res) => sendJsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON') };
  }
  // Checked on the bytes, before parsing, so no parser or validator down the line ever recurses
  // that deep.
  if (nestingExceeds(raw, maxDepth)) {
    return { reject: (res) => sendJsonRpcError(res, 400, -32600, `Invalid Request: the body is nested deeper than ${maxDepth} levels`) };
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { reject: (res) => sendJsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON') };
  }
  if (!isMessageOrFlatBatch(body)) {
    return { reject: (res) => sendJsonRpcError(res, 400, -32600, 'Invalid Request: the body must be a JSON-RPC message object or a non-empty array of them') };
  }
  return { body };
}

/**
 * Whether the JSON text nests arrays and objects deeper than `maxDepth`. One pass over the bytes
 * that stops at the first level too deep; strings are skipped with native searches for their closing
 * quote, so brackets inside them do not count and long texts cost little. No byte of a multi-byte
 * UTF-8 character can be mistaken for a quote, backslash or bracket. Text that is not JSON is left
 * for the parser to refuse.
 */
export function nestingExceeds(json: Buffer, maxDepth: number): boolean {
  // A body of n bytes cannot nest deeper than n / 2 levels.
  if (json.length <= maxDepth * 2) return false;
  let depth = 0;
  for (let index = 0; index < json.length; index++) {
    const byte = json[index];
    if (byte === QUOTE) {
      let closing = json.indexOf(QUOTE, index + 1);
      while (closing !== -1 && isEscaped(json, closing)) closing = json.indexOf(QUOTE, closing + 1);
      if (closing === -1) return false;
      index = closing;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** A quote is escaped when an odd number of backslashes stands right before it. */
function isEscaped(json: Buffer, quote: number): boolean {
  let backslashes = 0;
  for (let index = quote - 1; index >= 0 && json[index] === BACKSLASH; index--) backslashes++;
  return backslashes % 2 === 1;
}

/** A JSON-RPC message is an object with `"jsonrpc": "2.0"`; a batch is a non-empty array of them, never nested. */
function isMessageOrFlatBatch(body: unknown): boolean {
  if (!Array.isArray(body)) return isMessageObject(body);
  return body.length > 0 && body.every(isMessageObject);
}

function isMessageObject(value: unknown): boolean {
  return isPlainObject(value) && value['jsonrpc'] === '2.0';
}
