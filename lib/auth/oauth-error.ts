import type { ServerResponse } from 'node:http';
import { MAX_FORM_BYTES, type FormProblem } from '../http/read-form.js';
import { sendJson } from '../http/responses.js';

/**
 * An OAuth failure as data (RFC 6749 §5.2 / RFC 6750 §3): one type for every route, rendered by one
 * function, so no handler can leak internal error text into a response.
 */
export class OAuthFailure extends Error {
  readonly status: number;
  readonly error: string;
  readonly description: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A finer cause for the audit log (e.g. `verifier_mismatch`); the client only sees `error`. */
  reason: string | undefined;
  /** Whose request it was, when known, for the audit line (never shown to the client). */
  about: { readonly subject?: string; readonly client?: string } | undefined;

  constructor(status: number, error: string, description: string, headers: Record<string, string> = {}) {
    super(`${error}: ${description}`);
    this.name = 'OAuthFailure';
    this.status = status;
    this.error = error;
    this.description = description;
    this.headers = headers;
  }
}

export const invalidRequest = (description: string) => new OAuthFailure(400, 'invalid_request', description);
export const invalidGrant = (description: string, reason?: string) => {
  const failure = new OAuthFailure(400, 'invalid_grant', description);
  failure.reason = reason;
  return failure;
};
export const invalidClient = (description: string) => new OAuthFailure(401, 'invalid_client', description);
/** 503 with Retry-After (5 s unless a better figure is known), `reason` for the audit line. */
export const temporarilyUnavailable = (retryAfterSeconds = 5, reason?: string) => {
  const failure = new OAuthFailure(503, 'temporarily_unavailable', 'The authorization server is temporarily unavailable; try again shortly.', {
    'retry-after': String(retryAfterSeconds),
  });
  failure.reason = reason;
  return failure;
};

export function sendOAuthFailure(res: ServerResponse, failure: OAuthFailure): void {
  sendJson(res, failure.status, { error: failure.error, error_description: failure.description }, { ...failure.headers });
}

/**
 * A form an OAuth endpoint (`token`, `revocation`) could not accept, as the OAuth error its client
 * reads. Every problem is the client's: a body that could not be read was cut off by the client.
 */
export function formFailure(problem: FormProblem, endpoint: string): OAuthFailure {
  switch (problem) {
    case 'method':
      return new OAuthFailure(405, 'invalid_request', `Use POST for the ${endpoint} endpoint.`, { allow: 'POST' });
    case 'media_type':
      return invalidRequest(`The ${endpoint} request must be application/x-www-form-urlencoded.`);
    case 'too_large':
      return new OAuthFailure(413, 'invalid_request', `The request body exceeds ${MAX_FORM_BYTES} bytes.`);
    case 'unreadable':
      return invalidRequest('The request body could not be read.');
    case 'repeated':
      return invalidRequest('A parameter was repeated.');
  }
}
