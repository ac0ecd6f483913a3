import type { ServerResponse } from 'node:http';
import { CLIENT_CAPABILITIES_META_KEY, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isPlainObject } from '../../core/is-plain-object.js';
import type { Exchange } from '../exchange.js';
import { writeJsonRpcError, writeJsonRpcResult } from '../json-rpc-answers.js';
import { legacyErrorCode } from '../legacy-exchange-hub.js';
import { encodeModernContentResult, type ServerIdentity } from '../modern-results.js';
import type { PlainPromptGet, PlainResourceRead } from '../plain-requests.js';
import { MODERN_PROTOCOL_VERSION } from '../protocol-version.js';
import type { ContentCatalog } from './content-catalog.js';
import { getPrompt, readResource } from './content-requests.js';
import type { ContentExchange, ContentHandlerDependencies } from './content-types.js';

// Plain `resources/read` and `prompts/get` requests (plain-requests.ts) answered without the SDK's
// per-request machinery: the same functions as its handlers (content-requests.ts), so the same
// checks, flow messages and telemetry, and the answer its transport would write, byte for byte
// (direct-content.test.ts compares both paths in both eras).

export interface DirectContentDependencies {
  readonly content: ContentHandlerDependencies;
  readonly serverInfo: ServerIdentity;
}

export async function serveDirectRead(deps: DirectContentDependencies, catalog: ContentCatalog, read: PlainResourceRead, exchange: Exchange, res: ServerResponse): Promise<void> {
  const view = contentExchangeOf(read, exchange);
  try {
    const result = await readResource(deps.content, catalog, read.uri, view);
    writeJsonRpcResult(res, JSON.stringify(view.modern ? encodeModernContentResult('resources/read', result, deps.serverInfo) : result), read.id);
  } catch (error) {
    writeRefusal(res, read, error);
  }
}

export async function serveDirectPrompt(deps: DirectContentDependencies, catalog: ContentCatalog, get: PlainPromptGet, exchange: Exchange, res: ServerResponse): Promise<void> {
  const view = contentExchangeOf(get, exchange);
  try {
    const result = await getPrompt(deps.content, catalog, get, view);
    writeJsonRpcResult(res, JSON.stringify(view.modern ? encodeModernContentResult('prompts/get', result, deps.serverInfo) : result), get.id);
  } catch (error) {
    writeRefusal(res, get, error);
  }
}

/**
 * The request as the content functions see it. A plain request carries no retry of an earlier
 * round (no `requestState`, no `inputResponses`), so on 2026-07-28 it resumes nothing, exactly as
 * `resumeRound` finds for such a request on the SDK's path.
 */
function contentExchangeOf(request: PlainResourceRead | PlainPromptGet, exchange: Exchange): ContentExchange {
  const base = { caller: exchange.caller, signal: exchange.disconnected, protocolVersion: request.revision, requestId: request.id };
  const envelope = request.envelope;
  if (request.revision !== MODERN_PROTOCOL_VERSION || envelope === undefined) return base;
  return { ...base, modern: { resume: resumesNothing, declaredCapabilities: () => declaredIn(envelope) } };
}

const resumesNothing = async () => ({});

/** What the envelope says the client can be asked (as `declaredClientCapabilities` reads it). */
function declaredIn(envelope: Record<string, unknown>): Record<string, unknown> {
  const declared = envelope[CLIENT_CAPABILITIES_META_KEY];
  return isPlainObject(declared) ? declared : {};
}

/**
 * A refusal as the SDK writes it: the thrown error's code (else -32603) encoded for the era — the
 * 2026-07-28 codec sends -32002 as -32602, and the 2025 exchange hub sends an unknown resource back
 * as -32002 — its message and its data.
 */
function writeRefusal(res: ServerResponse, request: PlainResourceRead | PlainPromptGet, error: unknown): void {
  const thrown = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: string; data?: unknown };
  const raw = Number.isSafeInteger(thrown.code) ? (thrown.code as number) : ProtocolErrorCode.InternalError;
  const encoded = raw === -32002 ? -32602 : raw;
  const code = request.revision === MODERN_PROTOCOL_VERSION ? encoded : legacyErrorCode(encoded, thrown.data);
  writeJsonRpcError(res, request.id, { code, message: thrown.message ?? 'Internal error', ...(thrown.data !== undefined ? { data: thrown.data } : {}) });
}
