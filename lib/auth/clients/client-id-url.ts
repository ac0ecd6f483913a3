import { ClientMetadataError } from './client-metadata-error.js';

const MAX_CLIENT_ID_LENGTH = 2048;

/**
 * Checks that a client_id is a metadata document URL this server may treat as one: https, no
 * credentials, no fragment, and already in canonical form (the exact text `new URL()` would
 * produce). Requiring canonical text means the string compared with the document's `client_id`, the
 * host checked against the allow-list and the URL fetched can never differ: no dot segments, no
 * odd spellings of the host, no whitespace or backslashes for a parser to reinterpret.
 */
export function parseClientIdUrl(value: unknown): URL {
  const invalid = new ClientMetadataError(
    'invalid_url',
    'client_id must be a canonical https URL without credentials or fragment',
  );
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_CLIENT_ID_LENGTH) throw invalid;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') throw invalid;
  if (value.includes('#') || url.href !== value) throw invalid;
  return url;
}

/** URL.hostname keeps IPv6 brackets; sockets and address checks want the bare address. */
export function bareHostname(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
