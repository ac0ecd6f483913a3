import type { IncomingMessage } from 'node:http';
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { sendJsonRpcError } from '../http/responses.js';
import type { AccessDecision, AccessPolicy } from './access-policy.js';

const LOCAL_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];
const ANONYMOUS = Object.freeze({});

/**
 * Local access: no sign-in, so the only defence is that nobody else can reach the endpoint. The
 * listener binds loopback (checked when the endpoint starts), and Host/Origin are checked on every
 * request so a web page cannot reach it through DNS rebinding. A request without Origin is a
 * native client (Claude Code, Codex) and is let through.
 */
export function createLocalAccess(extraHostnames: readonly string[] = []): AccessPolicy {
  // Host and Origin are both compared by hostname, IPv6 in brackets ([::1]), so one list serves both.
  const allowed = [...new Set([...LOCAL_HOSTNAMES, ...extraHostnames.map(bracketIpv6)])];
  const refuse = (message: string): AccessDecision => ({
    allowed: false,
    reject: (res) => sendJsonRpcError(res, 403, -32000, message),
  });
  return {
    check(req: IncomingMessage): AccessDecision {
      const host = validateHostHeader(req.headers.host ?? null, allowed);
      if (!host.ok) return refuse(`Forbidden: Host header is not a local address`);
      const originHeader = req.headers.origin;
      if (originHeader !== undefined) {
        const origin = validateOriginHeader(originHeader, allowed);
        if (!origin.ok) return refuse(`Forbidden: Origin is not a local address`);
      }
      return { allowed: true, caller: ANONYMOUS };
    },
  };
}

function bracketIpv6(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
