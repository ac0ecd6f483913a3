import type { ServerResponse } from 'node:http';
import { newOpaqueToken, sha256 } from '../secrets.js';
import { SIGN_IN_TTL_SECONDS, type BridgeContext, type FinishedSignIn } from './bridge-context.js';
import { encodeRecord, RECORD_KINDS, type IssuedCode } from '../sign-in-records.js';
import { redirectWith, sendAuthorizationError } from './redirects.js';

/**
 * Stores a one-time code for `issued` and sends the browser back to the client with `code`, `state`
 * and `iss` (RFC 9207). A storage failure goes back to the client as `temporarily_unavailable`.
 */
export async function issueCodeAndRedirect(ctx: BridgeContext, res: ServerResponse, finished: FinishedSignIn): Promise<void> {
  const { issued, clientState } = finished;
  const code = newOpaqueToken();
  const record: IssuedCode = { ...issued, expiresAt: Date.now() + SIGN_IN_TTL_SECONDS * 1000 };
  try {
    await ctx.store.put({ namespace: ctx.namespace, kind: RECORD_KINDS.code, id: sha256(code) }, encodeRecord(record), SIGN_IN_TTL_SECONDS);
  } catch (error) {
    ctx.requestLog.error('code_storage', `authorization code could not be stored: ${error instanceof Error ? error.message : 'storage error'}`);
    ctx.audit({ event: 'oauth.sign_in', outcome: 'refused', reason: 'storage_unavailable', subject: issued.identity.subject, client: issued.client, endpoint: finished.endpointPath });
    const destination = { redirectUri: issued.redirectUri, ...(finished.redirectTrusted !== undefined ? { redirectTrusted: finished.redirectTrusted } : {}) };
    return sendAuthorizationError(res, destination, ctx.issuer, 'temporarily_unavailable', 'Sign-in is temporarily unavailable; try again shortly.', clientState);
  }
  ctx.audit({ event: 'oauth.sign_in', outcome: 'success', subject: issued.identity.subject, client: issued.client, endpoint: finished.endpointPath });
  redirectWith(res, issued.redirectUri, { code, state: clientState, iss: ctx.issuer });
}
