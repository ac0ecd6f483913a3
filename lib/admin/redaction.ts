import { REDACTED } from './limits.js';

// Secret words are found anywhere in a key, after lower-casing and dropping separators, so
// `api_key`, `apiKeys`, `X-API-KEY`, `secretValue` and `passwordHash` all meet one of them.
// A trailing `s`/`es` is part of the match, so plurals (`tokens`, `cookies`) count too.
const SECRET_WORDS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'accesskey',
  'privatekey',
  'secretkey',
  'accountkey',
  'signingkey',
  'encryptionkey',
  'masterkey',
  'sharedkey',
  'sessionkey',
  'authorization',
  'cookie',
  'credential',
  'connectionstring',
];
// Longest first, so `secretkey` is one match rather than `secret` followed by `key`.
const SECRET_PATTERN = new RegExp(`(?:${[...SECRET_WORDS].sort((a, b) => b.length - a.length).join('|')})(?:es|s)?`, 'g');

// Too short to search for inside other words (`passive`, `bypass`): a secret only as the key's
// last word (`pass`, `dbPass`, `user_pwd`, `jwt`).
const SHORT_SECRET_WORDS = new Set(['pass', 'pwd', 'pwds', 'pw', 'jwt', 'jwts', 'bearer']);

// What may follow the last secret word in a key that describes a secret without holding it:
// its kind, its name, its size or lifetime, where it is sent or kept, which environment variable
// holds it (`tokenType`, `secretName`, `accessTokenTtl`, `tokenUrl`, `passwordEnv`). Nothing that
// could be the secret itself or derived from it (`value`, `hash`, `header`, `id`) is listed.
const DESCRIBES_A_SECRET = new Set([
  'type',
  'types',
  'name',
  'names',
  'count',
  'length',
  'limit',
  'ttl',
  'expiry',
  'expires',
  'expiresin',
  'expiresat',
  'expiration',
  'lifetime',
  'url',
  'uri',
  'endpoint',
  'path',
  'file',
  'field',
  'env',
  'envvar',
]);
// Counts of tokens, as language-model nodes have them (`maxTokens`, `max_tokens`, `numTokens`).
const QUANTITY_PREFIXES = new Set(['max', 'min', 'num', 'total']);

/** A key's words: camelCase, snake_case, kebab-case and dotted names split, lower-cased. */
function wordsOf(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/**
 * Whether a property name says its value is a secret: a secret word anywhere in it (`password`,
 * `clientSecrets`, `x-api-key`, `secretValue`), or a short one as its last word (`dbPass`), unless
 * the rest of the name only describes the secret (`tokenType`, `secretName`, `maxTokens`).
 */
export function isSecretKey(key: string): boolean {
  const words = wordsOf(key);
  if (words.length === 0) return false;
  if (SHORT_SECRET_WORDS.has(words[words.length - 1]!)) return true;
  const name = words.join('');
  const matches = [...name.matchAll(SECRET_PATTERN)];
  if (matches.length === 0) return false;
  const first = matches[0]!;
  const last = matches[matches.length - 1]!;
  const before = name.slice(0, first.index);
  const after = name.slice(last.index + last[0].length);
  if (DESCRIBES_A_SECRET.has(after)) return false;
  if (after === '' && before !== '' && QUANTITY_PREFIXES.has(before) && /^tokens?$/.test(first[0])) return false;
  return true;
}

// Header values that never carry a credential; every other header's value is treated as secret,
// because credentials travel under ad-hoc names (`X-Auth`, `Ocp-Apim-Subscription-Key`).
const PLAIN_HEADERS = new Set([
  'accept',
  'accept-charset',
  'accept-encoding',
  'accept-language',
  'accept-ranges',
  'access-control-allow-headers',
  'access-control-allow-methods',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-max-age',
  'cache-control',
  'connection',
  'content-disposition',
  'content-encoding',
  'content-language',
  'content-length',
  'content-type',
  'dnt',
  'etag',
  'expect',
  'expires',
  'host',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'keep-alive',
  'last-modified',
  'origin',
  'pragma',
  'range',
  'sec-websocket-protocol',
  'sec-websocket-version',
  'te',
  'upgrade',
  'user-agent',
  'vary',
  'x-requested-with',
]);

/** Whether an HTTP header's value may be shown: only for the standard headers listed above. */
export function isPlainHeader(name: string): boolean {
  return PLAIN_HEADERS.has(name.trim().toLowerCase());
}

/** Whether a property name holds HTTP headers (`headers`, `requestHeaders`, `upgradeHeaders`). */
export function isHeadersKey(key: string): boolean {
  return key.toLowerCase().replace(/[-_.\s]/g, '').endsWith('headers');
}

/**
 * Whether a message property path (`password`, `req.headers.authorization`, `auth["apiKey"]`,
 * `headers.X-Tenant`) names a secret: any part secret-named, or a header other than a plain one.
 */
export function isSecretPath(path: string): boolean {
  const parts = path
    .split(/\.|\[|\]/)
    .map((part) => part.trim().replace(/^(['"])(.*)\1$/, '$2'))
    .filter((part) => part !== '');
  return parts.some((part, index) => isSecretKey(part) || (index > 0 && isHeadersKey(parts[index - 1]!) && !isPlainHeader(part)));
}

// scheme://userinfo@ — the userinfo part stops at anything that would end the authority.
const URL_USER_INFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"<>]+@/gi;
// ?name=value or &name=value — a query parameter, wherever it stands in the text.
const QUERY_PARAMETER = /([?&])([^=&#\s'"<>?]+)=([^&#\s'"<>]*)/g;

/** Replaces the user information of every URL in the text (`https://u:p@h` → `https://[REDACTED]@h`). */
export function redactUrlUserInfo(text: string): string {
  if (!text.includes('@')) return text;
  return text.replace(URL_USER_INFO, `$1${REDACTED}@`);
}

/**
 * URL user information and the values of secret-named query parameters (`?api_key=…`,
 * `&access_token=…`), for values shown as configured.
 */
export function redactUrlSecrets(text: string): string {
  const withoutUserInfo = redactUrlUserInfo(text);
  if (!withoutUserInfo.includes('=')) return withoutUserInfo;
  return withoutUserInfo.replace(QUERY_PARAMETER, (whole, separator: string, name: string, value: string) =>
    value !== '' && isSecretKey(decodeName(name)) ? `${separator}${name}=${REDACTED}` : whole,
  );
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** A readable path for reports: `rules[0].v`, `env[2].value`, `properties["odd key"]`. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}
