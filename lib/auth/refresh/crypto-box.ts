import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { McpPaletteError } from '../../core/errors.js';
import { REFRESH_KEY_BYTES } from './refresh-key.js';

/**
 * What a sealed value is for; each purpose encrypts under its own derived key. `code` carries the
 * provider's refresh token inside a one-time code record, from the callback to the code exchange.
 */
export type SealPurpose = 'upstream' | 'pending' | 'grace' | 'code';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value did not open: wrong key, other namespace/session/token, or tampered bytes. */
export class SealError extends McpPaletteError {
  constructor() {
    super('refresh_seal_invalid', 'a sealed refresh record could not be opened');
    this.name = 'SealError';
  }
}

export interface CryptoBox {
  /** AES-256-GCM with the binding as additional data: the value opens only under the same binding. */
  seal(purpose: SealPurpose, binding: readonly string[], plaintext: string): string;
  /** Throws SealError unless the value was sealed with this key, purpose and binding, unmodified. */
  open(purpose: SealPurpose, binding: readonly string[], sealed: string): string;
}

/**
 * Encryption of everything a refresh session stores that grants something (the provider's refresh
 * token, a verified provider result, a cached token pair). The binding (namespace, session, token
 * hash...) is authenticated, so a value copied into another record, namespace or session fails
 * closed instead of being accepted there.
 */
export function createCryptoBox(key: Buffer): CryptoBox {
  if (!Buffer.isBuffer(key) || key.length !== REFRESH_KEY_BYTES) {
    throw new McpPaletteError('invalid_refresh_key', `the refresh key must be ${REFRESH_KEY_BYTES} bytes`);
  }
  const keys = new Map<SealPurpose, Buffer>();
  // HKDF per purpose keeps one purpose's ciphertext from ever opening as another's.
  const keyFor = (purpose: SealPurpose): Buffer => {
    let derived = keys.get(purpose);
    if (!derived) {
      derived = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `node-red-mcp refresh ${VERSION} ${purpose}`, REFRESH_KEY_BYTES));
      keys.set(purpose, derived);
    }
    return derived;
  };
  const aad = (purpose: SealPurpose, binding: readonly string[]) => Buffer.from(JSON.stringify([VERSION, purpose, ...binding]), 'utf8');

  return Object.freeze({
    seal(purpose: SealPurpose, binding: readonly string[], plaintext: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyFor(purpose), iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(purpose, binding));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(purpose: SealPurpose, binding: readonly string[], sealed: string): string {
      const parts = typeof sealed === 'string' ? sealed.split('.') : [];
      if (parts.length !== 4 || parts[0] !== VERSION) throw new SealError();
      const iv = Buffer.from(parts[1] ?? '', 'base64url');
      const body = Buffer.from(parts[2] ?? '', 'base64url');
      const tag = Buffer.from(parts[3] ?? '', 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SealError();
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(purpose), iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(purpose, binding));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch {
        throw new SealError();
      }
    },
  });
}
