import assert from 'node:assert/strict';
import { OAuthFailure } from '../../lib/auth/oauth-error.js';

/** Awaits a refusal and checks its OAuth error code and HTTP status. */
export async function refusal(promise: Promise<unknown>, error: string, status = 400): Promise<OAuthFailure> {
  const caught = await promise.then(() => assert.fail(`expected ${error}`), (failure: unknown) => failure);
  assert.ok(caught instanceof OAuthFailure, `expected an OAuthFailure, got ${String(caught)}`);
  assert.equal(caught.error, error, caught.description);
  assert.equal(caught.status, status);
  return caught;
}
