/**
 * Turns ioredis errors into short tokens that are safe to log. Driver messages and error objects can
 * carry the host, the key (a token hash) or, on a failed HELLO/AUTH, the password in `command.args`,
 * so nothing from them leaves this file except a code-shaped word.
 */

// Reply errors start with an upper-case code (WRONGPASS, NOAUTH, LOADING, OOM, ERR ...).
const REPLY_CODE = /^([A-Z][A-Z_]{1,30})(?:\s|$)/;
const SYSTEM_CODE = /^[A-Z][A-Z0-9_]{1,40}$/;
const AUTH_CODES = new Set(['WRONGPASS', 'NOAUTH', 'NOPERM']);
const TLS_CODE = /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_)/;

/** ECONNREFUSED, WRONGPASS, CERT_HAS_EXPIRED ... or a generic word; never free text. */
export function redisErrorToken(error: unknown): string {
  if (!(error instanceof Error)) return 'UNKNOWN';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && SYSTEM_CODE.test(code)) return code;
  // Sentinel mode: no sentinel answered with a primary for the group (all down, or none knows the name).
  // Checked before the timeout, which the message may quote as the last sentinel's error.
  if (/^All sentinels are unreachable/.test(error.message) && !/invalid (username-)?password/i.test(error.message)) return 'SENTINELS_UNREACHABLE';
  if (/timed out/i.test(error.message)) return 'TIMEOUT';
  if (/invalid (username-)?password/i.test(error.message)) return 'WRONGPASS';
  return REPLY_CODE.exec(error.message)?.[1] ?? 'UNKNOWN';
}

/**
 * Errors that retrying cannot fix without someone changing configuration: the store reports
 * `failed` (red) rather than `reconnecting` (yellow) so the node status points at the cause.
 */
export function isConfigurationError(token: string): 'auth' | 'tls' | undefined {
  if (AUTH_CODES.has(token)) return 'auth';
  if (TLS_CODE.test(token)) return 'tls';
  return undefined;
}
