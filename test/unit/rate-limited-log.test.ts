import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from '../../lib/core/logger.js';
import { rateLimitedLog, type LogClock } from '../../lib/core/rate-limited-log.js';

/** A clock moved by hand: `advance` runs every callback that falls due, in order. */
function manualClock() {
  let now = 0;
  let nextId = 0;
  const due = new Map<number, { at: number; callback: () => void }>();
  const clock: LogClock = {
    now: () => now,
    after(ms, callback) {
      const id = nextId++;
      due.set(id, { at: now + ms, callback });
      return () => void due.delete(id);
    },
  };
  return {
    clock,
    pending: () => due.size,
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const next = [...due.entries()].filter(([, timer]) => timer.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!next) break;
        due.delete(next[0]);
        now = next[1].at;
        next[1].callback();
      }
      now = until;
    },
  };
}

function recordingLogger() {
  const lines: string[] = [];
  const logger: Logger = {
    debug: (message) => lines.push(`debug ${message}`),
    info: (message) => lines.push(`info ${message}`),
    warn: (message) => lines.push(`warn ${message}`),
    error: (message) => lines.push(`error ${message}`),
  };
  return { logger, lines };
}

describe('rateLimitedLog', () => {
  it('writes the first line of a kind at once and only counts the rest of the interval', () => {
    const { clock, advance } = manualClock();
    const { logger, lines } = recordingLogger();
    const log = rateLimitedLog(logger, { clock, intervalMs: 60_000 });
    for (let i = 0; i < 16_617; i += 1) log.warn('late_answer', `late answer ${i}`);
    assert.deepEqual(lines, ['warn late answer 0']);
    advance(60_000);
    assert.deepEqual(lines, ['warn late answer 0', 'warn 16616 more "late_answer" line(s) in the last 60 s, not written one by one']);
  });

  it('keeps one summary line per interval while a kind stays busy, and starts afresh after a quiet interval', () => {
    const { clock, advance, pending } = manualClock();
    const { logger, lines } = recordingLogger();
    const log = rateLimitedLog(logger, { clock, intervalMs: 60_000, summary: (kind, count, seconds) => `${kind} x${count} / ${seconds} s` });
    log.warn('late', 'first');
    log.warn('late', 'second');
    advance(60_000);
    log.warn('late', 'third');
    log.warn('late', 'fourth');
    advance(60_000);
    assert.deepEqual(lines, ['warn first', 'warn late x1 / 60 s', 'warn late x2 / 60 s']);
    // A quiet interval closes the kind: nothing is written for it and no timer is left behind.
    advance(60_000);
    assert.equal(pending(), 0);
    log.warn('late', 'fifth');
    assert.deepEqual(lines.at(-1), 'warn fifth');
  });

  it('limits each kind on its own and writes at the level it was reported at', () => {
    const { clock, advance } = manualClock();
    const { logger, lines } = recordingLogger();
    const log = rateLimitedLog(logger, { clock, intervalMs: 10_000, summary: (kind, count) => `${kind} x${count}` });
    log.warn('a', 'a1');
    log.error('b', 'b1');
    log.warn('a', 'a2');
    log.error('b', 'b2');
    log.error('b', 'b3');
    advance(10_000);
    assert.deepEqual(lines, ['warn a1', 'error b1', 'warn a x1', 'error b x2']);
  });

  it('writes what it counted when flushed, naming the time that really passed, and leaves no timer', () => {
    const { clock, advance, pending } = manualClock();
    const { logger, lines } = recordingLogger();
    const log = rateLimitedLog(logger, { clock, intervalMs: 60_000 });
    log.warn('quiet', 'only once');
    log.warn('busy', 'busy 1');
    log.warn('busy', 'busy 2');
    advance(12_000);
    log.flush();
    assert.deepEqual(lines, ['warn only once', 'warn busy 1', 'warn 1 more "busy" line(s) in the last 12 s, not written one by one']);
    assert.equal(pending(), 0);
    log.warn('busy', 'after the flush');
    assert.equal(lines.at(-1), 'warn after the flush');
  });
});
