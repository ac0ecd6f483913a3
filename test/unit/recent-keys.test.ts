import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentKeys } from '../../lib/core/recent-keys.js';

describe('RecentKeys', () => {
  it('remembers the last `capacity` keys and forgets the oldest first', () => {
    const recent = new RecentKeys(3);
    for (const key of ['a', 'b', 'c']) recent.add(key);
    assert.deepEqual(['a', 'b', 'c', 'd'].map((key) => recent.has(key)), [true, true, true, false]);
    recent.add('d');
    assert.deepEqual(['a', 'b', 'c', 'd'].map((key) => recent.has(key)), [false, true, true, true]);
    recent.add('e');
    recent.add('f');
    assert.deepEqual(['b', 'c', 'd', 'e', 'f'].map((key) => recent.has(key)), [false, false, true, true, true]);
    assert.equal(recent.size, 3);
  });

  it('stays at its capacity however many keys pass through it', () => {
    const recent = new RecentKeys(100);
    for (let n = 0; n < 10_000; n += 1) recent.add(`call-${n}`);
    assert.equal(recent.size, 100);
    assert.equal(recent.has('call-9899'), false);
    assert.equal(recent.has('call-9900'), true);
    assert.equal(recent.has('call-9999'), true);
  });
});
