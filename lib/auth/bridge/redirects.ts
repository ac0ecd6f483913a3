import type { ServerResponse } from 'node:http';
import { renderMessagePage, sendHtml } from '../consent/consent-page.js';

/** A 302 to `target` with `params` appended to its query (keeping any query it already has). */
export function redirectWith(res: ServerResponse, target: string, params: Record<string, string | undefined>): void {
  const url = new URL(target);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  res.writeHead(302, { location: url.toString(), 'cache-control': 'no-store' });
  res.end();
}

/**
 * An authorization error sent back to the client (RFC 6749 §4.1.2.1), with `iss` (RFC 9207) so the
 * client can tell which authorization server answered.
 */
export function redirectError(
  res: ServerResponse,
  redirectUri: string,
  issuer: string,
  error: string,
  description: string,
  state: string | undefined,
): void {
  redirectWith(res, redirectUri, { error, error_description: description, state, iss: issuer });
}

/** A redirect URI and whether errors may be sent there before the user approved the client. */
export interface ErrorDestination {
  readonly redirectUri: string;
  readonly redirectTrusted?: boolean;
}

const PAGE_STATUS: Readonly<Record<string, number>> = { temporarily_unavailable: 503, access_denied: 403, server_error: 500 };

/**
 * An authorization error for the client: redirected back to it when its redirect URI is trusted
 * (KnownClient.redirectTrusted), otherwise shown on a page of the bridge (RFC 9700 §4.11.2), so an
 * unverified registration cannot turn the bridge into an open redirector to a site of its choosing.
 */
export function sendAuthorizationError(
  res: ServerResponse,
  destination: ErrorDestination,
  issuer: string,
  error: string,
  description: string,
  state: string | undefined,
): void {
  if (destination.redirectTrusted === true) return redirectError(res, destination.redirectUri, issuer, error, description, state);
  const headers: Record<string, string> = error === 'temporarily_unavailable' ? { 'retry-after': '5' } : {};
  sendHtml(res, PAGE_STATUS[error] ?? 400, renderMessagePage('Sign-in stopped', `${description} (${error}) Start again from your MCP client.`), headers);
}

/** The user pressed Deny for a client whose redirect URI is not trusted: say so here instead of sending them there. */
export function sendDeclinedPage(res: ServerResponse): void {
  sendHtml(res, 200, renderMessagePage('Access declined', 'You declined access; the MCP client was not signed in. You can close this window.'));
}
