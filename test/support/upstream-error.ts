import assert from 'node:assert/strict';
import { UpstreamError } from '../../lib/auth/upstream/upstream-error.js';

/** The UpstreamError `promise` rejects with, checked to carry `reason`; fails the test on any other outcome. */
export async function rejectsWith(promise: Promise<unknown>, reason: string): Promise<UpstreamError> {
  const error = await promise.then(
    () => assert.fail(`expected an UpstreamError ${reason}`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof UpstreamError, `expected UpstreamError, got ${String(error)}`);
  assert.equal(error.reason, reason, error.message);
  return error;
}
