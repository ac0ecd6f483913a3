import { PROTOCOL_VERSION_META_KEY, type ServerContext } from '@modelcontextprotocol/server';

/** What 2025-era clients mean when they send no MCP-Protocol-Version header (spec 2025-06-18). */
const UNDECLARED_LEGACY_VERSION = '2025-03-26';

/** The revision served through the SDK's 2026 path (the request envelope names it). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * The 2025-era revisions the palette serves, newest first. The SDK's own list also names 2024
 * revisions; handing it this one keeps `initialize` from settling on a revision the palette does
 * not serve, and its unsupported-version error from naming them.
 */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(['2025-11-25', '2025-06-18', '2025-03-26']);

/**
 * 2025-03-26 let one POST carry a JSON-RPC batch; 2025-06-18 removed batching, so from then on a
 * POST holds one message. A request without the header is 2025-03-26 by the spec, so it may batch.
 */
const BATCHLESS_REVISIONS: ReadonlySet<string> = new Set(['2025-11-25', '2025-06-18']);

export function forbidsBatches(declaredVersion: string | null): boolean {
  return declaredVersion !== null && BATCHLESS_REVISIONS.has(declaredVersion);
}

/**
 * The revision one request was sent under: the 2026 envelope names it on every request; 2025-era
 * stateless requests carry it in the MCP-Protocol-Version header.
 */
export function protocolVersionOf(handlerCtx: ServerContext): string {
  const fromEnvelope = handlerCtx.mcpReq.envelope?.[PROTOCOL_VERSION_META_KEY as keyof typeof handlerCtx.mcpReq.envelope];
  if (typeof fromEnvelope === 'string') return fromEnvelope;
  return handlerCtx.http?.req?.headers.get('mcp-protocol-version') ?? UNDECLARED_LEGACY_VERSION;
}

/** The revision a 2026-era request body claims in its envelope (`params._meta`), if any. */
export function claimedRevisionOf(params: unknown): unknown {
  const meta = (params as { _meta?: unknown } | null | undefined)?._meta;
  return (meta as Record<string, unknown> | null | undefined)?.[PROTOCOL_VERSION_META_KEY];
}
