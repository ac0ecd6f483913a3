import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HangUp } from '../../lib/core/hang-up.js';

describe('HangUp (a request whose client may hang up)', () => {
  it('calls each listener once when it aborts, and none that was removed or added after', () => {
    const hangUp = new HangUp();
    const heard: string[] = [];
    const first = () => heard.push('first');
    const removed = () => heard.push('removed');
    hangUp.addEventListener('abort', first, { once: true });
    hangUp.addEventListener('abort', removed);
    hangUp.removeEventListener('abort', removed);
    hangUp.removeEventListener('abort', () => undefined);
    assert.equal(hangUp.aborted, false);
    hangUp.abort();
    hangUp.abort();
    assert.equal(hangUp.aborted, true);
    hangUp.addEventListener('abort', () => heard.push('late'));
    assert.deepEqual(heard, ['first']);
  });

  it('still calls the other listeners when one throws, and reports the error as an uncaught one (as an EventTarget does)', () => {
    const hangUp = new HangUp();
    const heard: string[] = [];
    hangUp.addEventListener('abort', () => {
      throw new Error('listener failed');
    });
    hangUp.addEventListener('abort', () => heard.push('second'));
    // The error is thrown again from a microtask of its own: caught here, before it reaches the test runner.
    const queued: Array<() => void> = [];
    const queueMicrotask = globalThis.queueMicrotask;
    globalThis.queueMicrotask = (task) => void queued.push(task);
    try {
      hangUp.abort();
    } finally {
      globalThis.queueMicrotask = queueMicrotask;
    }
    assert.deepEqual(heard, ['second']);
    assert.equal(queued.length, 1);
    assert.throws(queued[0]!, /listener failed/);
  });

  it('makes a real AbortSignal only when asked, aborted with it or already aborted', () => {
    const hangUp = new HangUp();
    const signal = hangUp.signal;
    assert.equal(hangUp.signal, signal, 'one signal per hang-up');
    assert.equal(signal.aborted, false);
    hangUp.abort();
    assert.equal(signal.aborted, true);
    const late = new HangUp();
    late.abort();
    assert.equal(late.signal.aborted, true);
  });

  it('follows an AbortSignal (an editor call brings its own)', () => {
    const controller = new AbortController();
    const hangUp = HangUp.following(controller.signal);
    let heard = 0;
    hangUp.addEventListener('abort', () => (heard += 1));
    controller.abort();
    assert.equal(hangUp.aborted, true);
    assert.equal(heard, 1);
    assert.equal(HangUp.following(AbortSignal.abort()).aborted, true);
  });
});
