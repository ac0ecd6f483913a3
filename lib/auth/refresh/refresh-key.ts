import { McpPaletteError } from '../../core/errors.js';

/** AES-256: the Refresh Key credential is exactly this many random bytes. */
export const REFRESH_KEY_BYTES = 32;

const HEX_KEY = /^[0-9a-fA-F]{64}$/;

/**
 * The Refresh Key credential (`openssl rand -hex 32`) as key bytes. Surrounding whitespace from a
 * paste is forgiven; anything but 64 hexadecimal characters is a configuration error, never a
 * shorter or padded key. The message never quotes the value.
 */
export function parseRefreshKey(hex: string): Buffer {
  const text = typeof hex === 'string' ? hex.trim() : '';
  if (!HEX_KEY.test(text)) {
    throw new McpPaletteError('invalid_refresh_key', `the refresh key must be ${REFRESH_KEY_BYTES * 2} hexadecimal characters (openssl rand -hex ${REFRESH_KEY_BYTES})`);
  }
  const key = Buffer.from(text, 'hex');
  // An all-zero key is what an unfilled template produces, not a secret.
  if (key.every((byte) => byte === 0)) {
    throw new McpPaletteError('invalid_refresh_key', 'the refresh key must be random, not all zeros');
  }
  return key;
}

/** Refresh is off when the credential is empty or absent; a non-empty value must be a valid key. */
export function parseOptionalRefreshKey(value: string | undefined | null): Buffer | undefined {
  if (value === undefined || value === null || value.trim() === '') return undefined;
  return parseRefreshKey(value);
}
