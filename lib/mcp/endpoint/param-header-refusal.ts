import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../core/logger.js';
import { isPlainObject } from '../../core/is-plain-object.js';
import { sendJson } from '../../http/responses.js';
import { checkParamHeaders } from '../param-headers.js';
import { claimedRevisionOf, MODERN_PROTOCOL_VERSION } from '../protocol-version.js';
import type { ToolCatalog } from '../tool-catalog.js';

/**
 * Answers 400 / -32020 for a 2026-07-28 `tools/call` whose `Mcp-Param-*` headers are missing or
 * disagree with its arguments, before dispatch, as the SDK's own `McpServer` does; true when it did.
 * Costs one catalog lookup, and nothing more for tools that declare no such header.
 */
export function refuseParamHeaderMismatch(catalog: ToolCatalog, req: IncomingMessage, res: ServerResponse, body: unknown, logger: Logger, path: string): boolean {
  if (!isPlainObject(body) || body['method'] !== 'tools/call') return false;
  const params = body['params'];
  const name = isPlainObject(params) ? params['name'] : undefined;
  const declarations = typeof name === 'string' ? catalog.find(name)?.paramHeaders : undefined;
  // A request naming a revision the palette does not serve gets the SDK's version error instead.
  if (!declarations || claimedRevisionOf(params) !== MODERN_PROTOCOL_VERSION) return false;
  const mismatch = checkParamHeaders(declarations, (params as Record<string, unknown>)['arguments'], req.headers);
  if (!mismatch) return false;
  logger.debug(`MCP request on ${path} refused: ${mismatch.message}`);
  const id = body['id'];
  const error = { code: mismatch.code, message: mismatch.message, data: mismatch.data };
  sendJson(res, mismatch.httpStatus, { jsonrpc: '2.0', error, id: typeof id === 'string' || typeof id === 'number' ? id : null });
  return true;
}
