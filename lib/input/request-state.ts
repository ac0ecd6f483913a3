import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { InputRequest } from './input-requests.js';

/** What a sealed `requestState` carries between two rounds of one 2026-07-28 call. */
export interface RoundState {
  /** Rounds the flow has asked so far (1 after the first `mcp-tool-input`). */
  readonly round: number;
  /** The flow's own state, as it gave it. */
  readonly state?: unknown;
  /** What was asked in the last round, so an answer that leaves some out can be asked again. */
  readonly requests: Readonly<Record<string, InputRequest>>;
  /** Answers a retry already gave while other questions of the same round are asked again. */
  readonly answers?: Readonly<Record<string, unknown>>;
}

/** Whom and what a state is bound to: a state minted for one of these is refused by any other. */
export interface StateBinding {
  readonly endpoint: string;
  /** `tool:<name>`, `prompt:<name>` or `resource:<uri>`. */
  readonly target: string;
  /** The caller key of whoever made the call (the OAuth subject, or the Local client). */
  readonly caller: string;
  /**
   * A digest of what the call asked for besides its target (a tool's or prompt's arguments,
   * argumentsDigest): a retry must ask for the same, or the flow that checked the first round's
   * arguments would act on others.
   */
  readonly arguments: string;
}

export type OpenedState =
  /** `expiresAt` (ms): how long a record that this state was used must be kept. */
  | { readonly ok: true; readonly value: RoundState; readonly expiresAt: number }
  /** `other_arguments`: genuine, but sealed for a call with other arguments. */
  | { readonly ok: false; readonly reason: 'malformed' | 'forged' | 'expired' | 'other_arguments' };

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals and opens the `requestState` of multi round-trip calls (2026-07-28). The client holds the
 * state between rounds and sends it back, so it is encrypted and authenticated (AES-256-GCM): the
 * client can neither read the flow's state nor change it. The binding (endpoint, tool, caller) is
 * the authenticated additional data, so a state replayed against another tool, endpoint or user
 * fails like a forged one; the expiry and the digest of the call's arguments are inside the sealed
 * text, so a retry with other arguments is told apart from a forgery. Any instance holding the same
 * key opens what another sealed; only the record that a state was used (UsedStates) is shared.
 */
export class RequestStateSealer {
  private readonly key: Buffer;
  private readonly ttlMs: number;

  constructor(secret: string | Buffer, ttlMs: number) {
    // Any length of secret becomes a 256-bit key; a hex or base64 key works as well as a passphrase.
    this.key = createHash('sha256').update('node-red-mcp request state\0').update(secret).digest();
    this.ttlMs = ttlMs;
  }

  /** A sealer with a fresh random key: states it seals open only in this process. */
  static ephemeral(ttlMs: number): RequestStateSealer {
    return new RequestStateSealer(randomBytes(32), ttlMs);
  }

  seal(value: RoundState, binding: StateBinding, now = Date.now()): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(additionalData(binding));
    const plain = Buffer.from(
      JSON.stringify({
        x: now + this.ttlMs,
        d: binding.arguments,
        r: value.round,
        q: value.requests,
        ...(value.state !== undefined ? { s: value.state } : {}),
        ...(value.answers !== undefined ? { a: value.answers } : {}),
      }),
    );
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${sealed.toString('base64url')}`;
  }

  open(text: string, binding: StateBinding, now = Date.now()): OpenedState {
    if (!text.startsWith(`${VERSION}.`)) return { ok: false, reason: 'malformed' };
    const sealed = Buffer.from(text.slice(VERSION.length + 1), 'base64url');
    // base64url decoding skips characters it does not know; re-encoding tells a clean text apart.
    if (sealed.length < IV_BYTES + TAG_BYTES + 2 || sealed.toString('base64url') !== text.slice(VERSION.length + 1)) return { ok: false, reason: 'malformed' };
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(additionalData(binding));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
    } catch {
      // GCM cannot tell a changed state from one bound elsewhere: both fail the same tag check.
      return { ok: false, reason: 'forged' };
    }
    const parsed = JSON.parse(plain.toString('utf8')) as { x: number; d?: string; r: number; q: RoundState['requests']; s?: unknown; a?: RoundState['answers'] };
    if (!(parsed.x > now)) return { ok: false, reason: 'expired' };
    // A state sealed before arguments were bound carries no digest: it cannot prove which call it belongs to.
    if (parsed.d !== binding.arguments) return { ok: false, reason: 'other_arguments' };
    const value: RoundState = { round: parsed.r, requests: parsed.q, ...('s' in parsed ? { state: parsed.s } : {}), ...(parsed.a !== undefined ? { answers: parsed.a } : {}) };
    return { ok: true, value, expiresAt: parsed.x };
  }
}

function additionalData(binding: StateBinding): Buffer {
  return Buffer.from(JSON.stringify([VERSION, binding.endpoint, binding.target, binding.caller]));
}
