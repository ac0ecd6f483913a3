import type { IncomingMessage, ServerResponse } from 'node:http';
import { peerAddress } from '../../http/client-address.js';
import { DEFAULTS } from '../../core/defaults.js';
import type { Mutable } from '../../core/mutable.js';
import { sendJsonRpcError } from '../../http/responses.js';
import { readJsonRpcBody } from '../../http/read-json-rpc-body.js';
import type { AccessDecision, AccessPolicy, CallerIdentity } from '../../access/access-policy.js';
import type { AuditSink } from '../audit.js';
import { sha256 } from '../secrets.js';
import type { BridgeContext, ProtectedEndpoint } from './bridge-context.js';
import { prmPathFor } from './metadata.js';
import type { AccessGrant } from '../sign-in-records.js';

/** What a client may do before signing in: negotiate, and nothing else (MCP authorization spec). */
const ANONYMOUS_METHODS = new Set(['initialize', 'notifications/initialized', 'server/discover']);

const FORBIDDEN_MESSAGES = {
  wrong_resource: 'This access token was issued for another MCP endpoint.',
  not_in_groups: 'Your account is not in a group allowed on this MCP endpoint.',
} as const;

/**
 * OAuth access for one endpoint: anonymous handshake, every other method (and GET) needs a bearer
 * token issued for this endpoint's resource to a member of its groups. A missing or dead token gets
 * 401 with the RFC 9728 challenge that starts sign-in in MCP clients; a live token for the wrong
 * endpoint or the wrong user gets 403.
 */
export function createBearerAccess(ctx: BridgeContext, endpoint: ProtectedEndpoint, audit: AuditSink): AccessPolicy {
  // Built once per endpoint: the only difference between challenges is the error named at the end.
  const challenge = `Bearer resource_metadata="${ctx.issuer}${prmPathFor(endpoint)}", scope="${ctx.scopes.join(' ')}"`;
  const clientAddressOf = ctx.clientAddressOf ?? peerAddress;
  /** The refused caller's address, for the audit line (worked out only when someone is refused). */
  const from = (req: IncomingMessage) => {
    const ip = clientAddressOf(req);
    return ip ? { ip } : {};
  };
  const unauthorized = (parsedBody: unknown, extra = ''): AccessDecision => ({
    allowed: false,
    refusal: 'unauthenticated',
    parsedBody,
    reject: (res) => sendJsonRpcError(res, 401, -32001, 'Authentication required: sign in to use this MCP endpoint.', { 'www-authenticate': challenge + extra }),
  });
  const forbidden = (parsedBody: unknown, message: string): AccessDecision => ({
    allowed: false,
    refusal: 'forbidden',
    parsedBody,
    reject: (res) => sendJsonRpcError(res, 403, -32001, message),
  });

  return {
    refuseScope(res: ServerResponse, caller: CallerIdentity, missing: readonly string[]): void {
      audit({ event: 'mcp.auth', reason: 'insufficient_scope', ...(caller.subject ? { subject: caller.subject } : {}), ...(caller.client ? { client: caller.client } : {}), endpoint: endpoint.path, scopes: missing.join(' ') });
      // The scopes to ask for: what the token has (so a client that does not add them up keeps them)
      // and what the item needs, in one challenge (MCP authorization: scope challenge handling).
      const scope = [...new Set([...ctx.scopes, ...(caller.scopes ?? []), ...missing])].join(' ');
      const header = `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${ctx.issuer}${prmPathFor(endpoint)}", error_description="This request needs the scope ${missing.join(' ')}: sign in again to grant it"`;
      sendJsonRpcError(res, 403, -32001, `Insufficient scope: this request needs ${missing.join(' ')}. Sign in again to grant it.`, { 'www-authenticate': header });
    },
    async check(req: IncomingMessage): Promise<AccessDecision> {
      let parsedBody: unknown;
      if (req.method === 'POST') {
        const read = await readJsonRpcBody(req, DEFAULTS.maxRequestBodyBytes);
        if ('reject' in read) return { allowed: false, reject: read.reject };
        parsedBody = read.body;
        if (isAnonymousOnly(parsedBody)) return { allowed: true, caller: {}, parsedBody };
      }

      const token = bearerToken(req);
      if (!token) return unauthorized(parsedBody);
      let grant: AccessGrant | undefined;
      try {
        grant = await ctx.accessGrants.lookup(sha256(token));
      } catch {
        ctx.requestLog.error('token_check_storage', `token check on ${endpoint.path} failed: storage unavailable`);
        return { allowed: false, reject: (res) => sendJsonRpcError(res, 503, -32000, 'Authorization storage is temporarily unavailable; retry shortly.', { 'retry-after': '5' }) };
      }
      if (!grant || grant.expiresAt <= Date.now()) {
        audit({ event: 'mcp.auth', reason: 'invalid_token', endpoint: endpoint.path, ...from(req) });
        return unauthorized(parsedBody, ', error="invalid_token", error_description="The access token is invalid or expired"');
      }
      const refused = grant.resource !== endpoint.resource ? 'wrong_resource' : endpoint.groups.some((group) => grant.identity.groups.includes(group)) ? undefined : 'not_in_groups';
      if (refused) {
        audit({ event: 'mcp.auth', reason: refused, subject: grant.identity.subject, client: grant.client, endpoint: endpoint.path, ...from(req) });
        return forbidden(parsedBody, FORBIDDEN_MESSAGES[refused]);
      }
      // Member by member, not spread from temporary objects: every signed-in call is admitted here.
      const caller: Mutable<CallerIdentity> = { subject: grant.identity.subject };
      if (grant.identity.email) caller.email = grant.identity.email;
      // A copy: the flow gets it in msg.mcp, and the grant is shared with the next calls (AccessGrantCache).
      caller.groups = [...grant.identity.groups];
      caller.client = grant.client;
      caller.session = grant.session;
      // Judged now, against the groups of the grant's identity (renewed at each refresh).
      caller.scopes = ctx.scopeGrants.allowed(grant.scope, grant.identity.groups);
      return parsedBody !== undefined ? { allowed: true, caller, parsedBody } : { allowed: true, caller };
    },
  };
}

function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim());
  return match?.[1];
}

function isAnonymousOnly(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.length > 0 && messages.every((message) => {
    const method = (message as { method?: unknown } | null)?.method;
    return typeof method === 'string' && ANONYMOUS_METHODS.has(method);
  });
}
