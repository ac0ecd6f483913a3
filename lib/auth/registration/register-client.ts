import type { IncomingMessage, ServerResponse } from 'node:http';
import { peerAddress } from '../../http/client-address.js';
import type { Logger } from '../../core/logger.js';
import { BodyTooLargeError, mediaTypeOf, readBody } from '../../http/read-body.js';
import { sendJson } from '../../http/responses.js';
import { isStorageUnavailable, type Store } from '../../storage/store.js';
import { OAuthFailure, sendOAuthFailure, temporarilyUnavailable } from '../oauth-error.js';
import { addressSubject, countEvent, type RateVerdict } from './rate-limit.js';
import type { RegistrationAuditEvent } from './registration-audit.js';
import type { RegistrationPolicy } from './registration-policy.js';
import { newRegisteredClientId, saveRegistration, type RegistrationRecord } from './registration-record.js';
import { parseRegistrationRequest, RegistrationRefused } from './registration-request.js';
import { clientLabel } from '../client-label.js';

export interface RegistrationContext {
  readonly store: Store;
  /** The bridge's namespace: registrations belong to one provider, issuer and slug. */
  readonly namespace: string;
  readonly policy: RegistrationPolicy;
  readonly logger: Logger;
  readonly audit?: (event: RegistrationAuditEvent) => void;
  /** false when the bridge cannot refresh: `refresh_token` is then left out of registered grant types. Default true. */
  readonly allowRefreshToken?: boolean;
  /** The client's address to rate-limit by (behind trusted proxies, from X-Forwarded-For); default the socket's peer. */
  readonly clientAddress?: (req: IncomingMessage) => string | undefined;
  /** Clock in milliseconds for issue times and rate windows; tests share it with a MemoryStore. */
  readonly now?: () => number;
}

/** Counter subject of the configuration-wide window. */
const EVERYONE = 'all';

/**
 * POST /oauth/<slug>/register: RFC 7591 dynamic client registration for public clients. Answers 201
 * with the registered metadata and a new opaque `client_id` (no secret, no registration access
 * token: there is no management endpoint, nobody but the bridge ever reads a registration).
 *
 * Refusals: 405 non-POST, 415 non-JSON, 413 over the body limit (all `invalid_request`); 400
 * `invalid_client_metadata` / `invalid_redirect_uri` (RFC 7591 §3.2.2); 429 with Retry-After when the
 * client's address or the whole configuration is over its window, with `temporarily_unavailable`
 * (RFC 7591 defines no code for it; that one tells clients to come back later); 503
 * `temporarily_unavailable` when storage is down. A disabled policy answers 404 like an unmounted path.
 */
export function createRegistrationHandler(ctx: RegistrationContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const now = ctx.now ?? Date.now;
  const peer = ctx.clientAddress ?? peerAddress;
  const audit = ctx.audit ?? (() => {});
  if (ctx.policy.enabled && ctx.store.mode === 'memory') {
    ctx.logger.warn('dynamic client registrations are kept in memory: they are lost on restart and not shared with other instances; clients then register again');
  }

  return async (req, res) => {
    if (!ctx.policy.enabled) {
      req.resume();
      return sendJson(res, 404, { error: 'not_found' });
    }
    const ip = peer(req);
    const refuse = (failure: OAuthFailure, reason: string, audited = true) => {
      if (audited) audit({ event: 'oauth.register', outcome: 'refused', reason, ...(ip ? { ip } : {}) });
      sendOAuthFailure(res, failure);
    };

    let body: unknown;
    try {
      body = await readJsonBody(req, ctx.policy.maxBodyBytes);
    } catch (error) {
      if (error instanceof OAuthFailure) return refuse(error, error.error, false);
      throw error;
    }

    let request;
    try {
      request = parseRegistrationRequest(body, ctx.policy, ctx.allowRefreshToken ?? true);
    } catch (error) {
      if (error instanceof RegistrationRefused) return refuse(new OAuthFailure(400, error.error, error.description), error.error);
      throw error;
    }

    try {
      const started = now();
      const byAddress = await countEvent(ctx.store, ctx.namespace, addressSubject(ip), ctx.policy.perAddress, started);
      if (!byAddress.allowed) return refuse(tooMany(byAddress, 'from this address'), 'rate_limited_address', byAddress.first);
      const overall = await countEvent(ctx.store, ctx.namespace, EVERYONE, ctx.policy.perNamespace, started);
      if (!overall.allowed) {
        if (overall.first) ctx.logger.warn(`dynamic client registration paused: more than ${ctx.policy.perNamespace.max} registrations within ${ctx.policy.perNamespace.windowSeconds} s`);
        return refuse(tooMany(overall, 'on this server'), 'rate_limited_namespace', overall.first);
      }

      const record: RegistrationRecord = {
        v: 1,
        clientId: newRegisteredClientId(),
        redirectUris: request.redirectUris,
        grantTypes: request.grantTypes,
        responseTypes: request.responseTypes,
        applicationType: request.applicationType,
        ...(request.clientName !== undefined ? { clientName: request.clientName } : {}),
        issuedAt: Math.floor(started / 1000),
      };
      if (!(await saveRegistration(ctx.store, ctx.namespace, record, ctx.policy.unusedSeconds))) {
        throw new Error('a freshly drawn client_id already existed');
      }
      ctx.logger.info(`registered dynamic client ${record.clientId}${record.clientName ? ` (${record.clientName})` : ''}`);
      audit({
        event: 'oauth.register',
        outcome: 'success',
        clientId: record.clientId,
        // The label every later line of this client carries, so the lines can be joined.
        client: clientLabel(record.clientId, record.clientName),
        ...(record.clientName !== undefined ? { clientName: record.clientName } : {}),
        ...(ip ? { ip } : {}),
      });
      sendJson(res, 201, registrationResponse(record), { pragma: 'no-cache' });
    } catch (error) {
      ctx.logger.error(`client registration could not be stored: ${isStorageUnavailable(error) ? error.message : 'storage error'}`);
      refuse(temporarilyUnavailable(), 'storage_unavailable');
    }
  };
}

/** RFC 7591 §3.2.1 client information response: the metadata as registered, plus the id. */
export function registrationResponse(record: RegistrationRecord): Record<string, unknown> {
  return {
    client_id: record.clientId,
    client_id_issued_at: record.issuedAt,
    ...(record.clientName !== undefined ? { client_name: record.clientName } : {}),
    redirect_uris: [...record.redirectUris],
    grant_types: [...record.grantTypes],
    response_types: [...record.responseTypes],
    token_endpoint_auth_method: 'none',
    application_type: record.applicationType,
  };
}

function tooMany(verdict: Extract<RateVerdict, { allowed: false }>, where: string): OAuthFailure {
  return new OAuthFailure(429, 'temporarily_unavailable', `Too many client registrations ${where}; try again in ${verdict.retryAfterSeconds} s.`, {
    'retry-after': String(verdict.retryAfterSeconds),
  });
}

async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  if (req.method !== 'POST') {
    req.resume();
    throw new OAuthFailure(405, 'invalid_request', 'Use POST to register a client.', { allow: 'POST' });
  }
  if (mediaTypeOf(req) !== 'application/json') {
    req.resume();
    throw new OAuthFailure(415, 'invalid_request', 'The registration request must be application/json.');
  }
  let raw: Buffer;
  try {
    raw = await readBody(req, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new OAuthFailure(413, 'invalid_request', `The request body exceeds ${maxBytes} bytes.`);
    throw new OAuthFailure(400, 'invalid_request', 'The request body could not be read.');
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new OAuthFailure(400, 'invalid_client_metadata', 'The request body is not valid JSON.');
  }
}
