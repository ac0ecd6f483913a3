import type { ClientMetadata } from './client-metadata.js';

// A loopback redirect URI taken apart without normalization: the scheme and host exactly as
// written (lowercase), an optional port, then the raw path and query. Anything a URL parser would
// rewrite (backslashes, userinfo, percent-encoded or upper-case hosts) simply does not match.
const LOOPBACK_URI = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::([0-9]+))?((?:\/[^?#]*)?(?:\?[^#]*)?)$/;

interface LoopbackUri {
  readonly host: string;
  readonly port: string | undefined;
  readonly rest: string;
}

function splitLoopback(uri: string): LoopbackUri | undefined {
  const match = LOOPBACK_URI.exec(uri);
  if (match === null) return undefined;
  const [, host = '', port, rest = ''] = match;
  if (port !== undefined && !/^[1-9][0-9]{0,4}$/.test(port)) return undefined;
  if (port !== undefined && Number(port) > 65535) return undefined;
  return { host, port, rest };
}

/** A plain-http redirect back to this machine (RFC 8252 §7.3), written exactly as the matcher accepts it. */
export function isLoopbackRedirectUri(uri: string): boolean {
  return splitLoopback(uri) !== undefined && isParsable(uri);
}

function isParsable(uri: string): boolean {
  try {
    new URL(uri);
    return true;
  } catch {
    return false;
  }
}

/**
 * May the authorization request redirect to `requested` for this client?
 *
 * Registered URIs match by exact string. In addition, for native clients and documents without
 * `application_type`, a registered `http://127.0.0.1`, `http://[::1]` or `http://localhost` URI (with
 * or without a port) matches the same scheme, host, path and query on any port (RFC 8252 section 7.3:
 * native apps listen on an ephemeral port; Claude Code registers `http://localhost/callback` and
 * then sends `http://localhost:<port>/callback`). Web clients get exact matching only; https
 * loopback URIs are not special; a requested URI with a fragment never matches.
 */
export function redirectUriAllowed(requested: string, metadata: ClientMetadata): boolean {
  if (requested.includes('#')) return false;
  if (metadata.redirectUris.includes(requested)) return true;
  if (metadata.applicationType === 'web') return false;

  const wanted = splitLoopback(requested);
  if (wanted === undefined || !isParsable(requested)) return false;
  return metadata.redirectUris.some((registered) => {
    const candidate = splitLoopback(registered);
    return candidate !== undefined && candidate.host === wanted.host && candidate.rest === wanted.rest;
  });
}
