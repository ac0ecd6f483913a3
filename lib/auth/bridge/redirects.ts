import type { ServerResponse } from 'node:http';

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
