import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ListenShares, listenShareOf } from '../../lib/mcp/listen-shares.js';

describe("each caller's share of the listen streams", () => {
  it('is a tenth of Open streams, at least one', () => {
    assert.deepEqual([1, 9, 10, 25, 1000].map(listenShareOf), [1, 1, 1, 2, 100]);
  });

  it('refuses a caller at its share, not another caller, and gives a slot back once per release', () => {
    const shares = new ListenShares(20);
    const first = shares.take('alice\u0000claude');
    assert.ok(first);
    assert.ok(shares.take('alice\u0000claude'));
    assert.equal(shares.take('alice\u0000claude'), undefined);
    assert.ok(shares.take('carol\u0000claude'), 'another caller has a share of its own');
    first();
    first();
    assert.equal(shares.heldBy('alice\u0000claude'), 1, 'a second release of the same stream changes nothing');
    assert.ok(shares.take('alice\u0000claude'));
    assert.equal(shares.take('alice\u0000claude'), undefined);
  });

  it("does not limit callers that cannot be told apart (Local access): the endpoint's cap still holds", () => {
    const shares = new ListenShares(10);
    for (let i = 0; i < 5; i += 1) assert.ok(shares.take(''));
    assert.equal(shares.heldBy(''), 0);
  });
});
