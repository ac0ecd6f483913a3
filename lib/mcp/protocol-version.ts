import { PROTOCOL_VERSION_META_KEY, type ServerContext } from '@modelcontextprotocol/server';

/** What 2025-era clients mean when they send no MCP-Protocol-Version header (spec 2025-06-18). */
const UNDECLARED_LEGACY_VERSION = '2025-03-26';

/**
 * The revision one request was sent under: the 2026 envelope names it on every request; 2025-era
 * stateless requests carry it in the MCP-Protocol-Version header.
 */
export function protocolVersionOf(handlerCtx: ServerContext): string {
  const fromEnvelope = handlerCtx.mcpReq.envelope?.[PROTOCOL_VERSION_META_KEY as keyof typeof handlerCtx.mcpReq.envelope];
  if (typeof fromEnvelope === 'string') return fromEnvelope;
  return handlerCtx.http?.req?.headers.get('mcp-protocol-version') ?? UNDECLARED_LEGACY_VERSION;
}
