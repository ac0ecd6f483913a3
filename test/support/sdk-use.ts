import { Server as SdkServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

/**
 * How often the SDK took part in answering requests, counted by spies around its real methods (not
 * stand-ins): runs of its 2025-era transport, and connections of the server a 2026-07-28 request on
 * its path gets of its own. A test of a direct path knows from these which path answered.
 * Importing this module installs the spies (once per test process).
 */
export const sdkUse = { transportRuns: 0, serverConnects: 0 };

const handleRequest = WebStandardStreamableHTTPServerTransport.prototype.handleRequest;
WebStandardStreamableHTTPServerTransport.prototype.handleRequest = function (this: WebStandardStreamableHTTPServerTransport, ...args: Parameters<typeof handleRequest>) {
  sdkUse.transportRuns++;
  return handleRequest.apply(this, args);
};

const connect = SdkServer.prototype.connect;
SdkServer.prototype.connect = function (this: SdkServer, ...args: Parameters<typeof connect>) {
  sdkUse.serverConnects++;
  return connect.apply(this, args);
};
