import { REDACTED } from './limits.js';

// Compared after lower-casing and dropping separators, so `api_key`, `apiKey` and `API-KEY` meet.
const SECRET_NAMES = new Set(['pass', 'pwd', 'pw', 'jwt', 'bearer']);
const SECRET_SUFFIXES = [
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
  'authorization',
  'cookie',
  'credential',
  'credentials',
  'connectionstring',
];

/** Whether a property name says its value is a secret (`password`, `clientSecret`, `x-api-key` …). */
export function isSecretKey(key: string): boolean {
  const name = key.toLowerCase().replace(/[-_.\s]/g, '');
  if (name === '') return false;
  return SECRET_NAMES.has(name) || SECRET_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

// scheme://userinfo@ — the userinfo part stops at anything that would end the authority.
const URL_USER_INFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"<>]+@/gi;

/** Replaces the user information of every URL in the text (`https://u:p@h` → `https://[REDACTED]@h`). */
export function redactUrlUserInfo(text: string): string {
  if (!text.includes('@')) return text;
  return text.replace(URL_USER_INFO, `$1${REDACTED}@`);
}

/** A readable path for reports: `rules[0].v`, `env[2].value`, `properties["odd key"]`. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}
