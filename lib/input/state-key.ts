import { McpPaletteError } from '../core/errors.js';
import type { Environment } from '../config/env-secrets.js';
import { RequestStateSealer } from './request-state.js';

/** The environment variable that holds the key every instance seals 2026-07-28 request states with. */
export const REQUEST_STATE_KEY_ENV = 'MCP_REQUEST_STATE_KEY';
/** How long a client may take between two rounds of a call whose flow asks it. */
export const REQUEST_STATE_TTL_MS = 15 * 60_000;
const MIN_KEY_LENGTH = 32;

let processSealer: RequestStateSealer | undefined;
let keyed: { readonly key: string; readonly sealer: RequestStateSealer } | undefined;

/**
 * The sealer for this process. With `MCP_REQUEST_STATE_KEY` set (the same value on every instance
 * behind a load balancer), any instance resumes a call another one started; without it, a random key
 * of this process, so a state only comes back to the instance that sealed it (and not after a restart).
 * A key too short to be a key is a configuration error, not a silent fallback.
 */
export function requestStateSealer(env: Environment = process.env): RequestStateSealer {
  const key = env[REQUEST_STATE_KEY_ENV]?.trim();
  if (!key) return (processSealer ??= RequestStateSealer.ephemeral(REQUEST_STATE_TTL_MS));
  if (key.length < MIN_KEY_LENGTH) {
    throw new McpPaletteError('invalid_state_key', `${REQUEST_STATE_KEY_ENV} must be at least ${MIN_KEY_LENGTH} characters (use a random value, the same on every instance)`, {
      name: REQUEST_STATE_KEY_ENV,
    });
  }
  if (keyed?.key !== key) keyed = { key, sealer: new RequestStateSealer(key, REQUEST_STATE_TTL_MS) };
  return keyed.sealer;
}
