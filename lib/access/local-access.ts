import type { IncomingMessage } from 'node:http';
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { DEFAULTS } from '../core/defaults.js';
import { readJsonRpcBody } from '../http/read-json-rpc-body.js';
import { sendJsonRpcError } from '../http/responses.js';
import type { AccessDecision, AccessPolicy } from './access-policy.js';
import { isLoopbackHost } from './loopback.js';

const LOCAL_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];
const ANONYMOUS = Object.freeze({});

/**
 * Local access: no sign-in, so the only defence is that nobody else can reach the endpoint. The
 * listener binds loopback (checked when the endpoint starts), and Host/Origin are checked on every
 * request so a web page cannot reach it through DNS rebinding. A request without Origin is a
 * native client (Claude Code, Codex) and is let through. On Node-RED's own server, which may listen
 * on every address, `loopbackPeersOnly` also refuses connections from other machines.
 */
export function createLocalAccess(extraHostnames: readonly string[] = [], options: { readonly loopbackPeersOnly?: boolean } = {}): AccessPolicy {
  // Host and Origin are both compared by hostname, IPv6 in brackets ([::1]), so one list serves both.
  const allowed = [...new Set([...LOCAL_HOSTNAMES, ...extraHostnames.map(bracketIpv6)])];
  // A refused call counts in telemetry like an OAuth refusal; whether it was a tools/call is in its
  // body, which is read (within the usual body limit) only for refused POSTs.
  const refuse = async (req: IncomingMessage, message: string): Promise<AccessDecision> => {
    const read = req.method === 'POST' ? await readJsonRpcBody(req, DEFAULTS.maxRequestBodyBytes) : undefined;
    return {
      allowed: false,
      reject: (res) => sendJsonRpcError(res, 403, -32000, message),
      refusal: 'forbidden',
      ...(read && 'body' in read ? { parsedBody: read.body } : {}),
    };
  };
  return {
    check(req: IncomingMessage): AccessDecision | Promise<AccessDecision> {
      // On a server this package did not bind (Node-RED's), a Host header proves nothing about who
      // connected: anyone can write "localhost". The socket's peer (never X-Forwarded-For) decides.
      if (options.loopbackPeersOnly && !isLoopbackHost(req.socket?.remoteAddress ?? '')) {
        return refuse(req, 'Forbidden: Local access is served to this machine only');
      }
      const host = validateHostHeader(req.headers.host ?? null, allowed);
      if (!host.ok) return refuse(req, `Forbidden: Host header is not a local address`);
      const originHeader = req.headers.origin;
      if (originHeader !== undefined) {
        const origin = validateOriginHeader(originHeader, allowed);
        if (!origin.ok) return refuse(req, `Forbidden: Origin is not a local address`);
      }
      return { allowed: true, caller: ANONYMOUS };
    },
  };
}

function bracketIpv6(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
