/**
 * JSON-RPC error codes the palette uses that the SDK's ProtocolErrorCode does not name. The transport
 * reserves -32000..-32099 for the server's own; MCP servers use -32000 for "busy, retry shortly".
 */
export const SERVER_BUSY = -32000;
