import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseLogPayload, parseProgressPayload } from '../../lib/mcp/flow-reports.js';
import { LogLevelBook, isLogLevel, passesThreshold } from '../../lib/mcp/log-levels.js';
import { LogThrottle } from '../../lib/core/log-throttle.js';
import { cancelledRequestId } from '../../lib/execution/cancellation.js';
import { callerKey } from '../../lib/access/caller-key.js';
import { hasToolCall, wantsProgress } from '../../lib/mcp/call-stream.js';

describe('flow reports (mcp-tool-progress, mcp-tool-log)', () => {
  it('accepts a progress report and names the bad field of a refused one', () => {
    assert.deepEqual(parseProgressPayload({ executionId: 'e1', progress: 2, total: 10, message: 'two' }), {
      ok: true,
      executionId: 'e1',
      value: { progress: 2, total: 10, message: 'two' },
    });
    assert.deepEqual(parseProgressPayload({ executionId: 'e1', progress: 0.5 }), { ok: true, executionId: 'e1', value: { progress: 0.5 } });
    assert.deepEqual(parseProgressPayload({ progress: 1 }), { ok: false, field: 'executionId' });
    assert.deepEqual(parseProgressPayload('e1'), { ok: false, field: 'executionId' });
    assert.deepEqual(parseProgressPayload({ executionId: 'e1', progress: '1' }), { ok: false, field: 'progress' });
    assert.deepEqual(parseProgressPayload({ executionId: 'e1', progress: Number.NaN }), { ok: false, field: 'progress' });
    assert.deepEqual(parseProgressPayload({ executionId: 'e1', progress: 1, total: 'ten' }), { ok: false, field: 'total' });
    assert.deepEqual(parseProgressPayload({ executionId: 'e1', progress: 1, message: 42 }), { ok: false, field: 'message' });
  });

  it('accepts a log line at any MCP level and refuses a bad level, missing data or a bad logger', () => {
    assert.deepEqual(parseLogPayload({ executionId: 'e1', level: 'warning', data: { rows: 3 }, logger: 'db' }), {
      ok: true,
      executionId: 'e1',
      value: { level: 'warning', data: { rows: 3 }, logger: 'db' },
    });
    assert.deepEqual(parseLogPayload({ executionId: 'e1', level: 'loud', data: 'x' }), { ok: false, field: 'level' });
    assert.deepEqual(parseLogPayload({ executionId: 'e1', level: 'info' }), { ok: false, field: 'data' });
    assert.deepEqual(parseLogPayload({ executionId: 'e1', level: 'info', data: 'x', logger: 7 }), { ok: false, field: 'logger' });
    assert.deepEqual(parseLogPayload({ level: 'info', data: 'x' }), { ok: false, field: 'executionId' });
  });
});

describe('log levels', () => {
  it('orders levels by severity', () => {
    assert.equal(isLogLevel('notice'), true);
    assert.equal(isLogLevel('verbose'), false);
    assert.equal(passesThreshold('error', 'warning'), true);
    assert.equal(passesThreshold('warning', 'warning'), true);
    assert.equal(passesThreshold('info', 'warning'), false);
  });

  it('keeps one level per caller and forgets the oldest past its bound', () => {
    const book = new LogLevelBook();
    assert.equal(book.get('ada'), undefined);
    book.set('ada', 'info');
    book.set('bob', 'error');
    assert.equal(book.get('ada'), 'info');
    assert.equal(book.get('bob'), 'error');
    for (let index = 0; index < 10_000; index += 1) book.set(`caller-${index}`, 'debug');
    assert.equal(book.get('ada'), undefined, 'the oldest caller was forgotten');
    assert.equal(book.get('caller-9999'), 'debug');
  });
});

describe('cancellation helpers', () => {
  it('reads the request id of a notifications/cancelled and nothing else', () => {
    assert.equal(cancelledRequestId({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'x' } }), 7);
    assert.equal(cancelledRequestId({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a' } }), 'a');
    assert.equal(cancelledRequestId({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} }), undefined);
    assert.equal(cancelledRequestId({ jsonrpc: '2.0', id: 1, method: 'notifications/cancelled', params: { requestId: 7 } }), undefined);
    assert.equal(cancelledRequestId({ jsonrpc: '2.0', id: 1, method: 'tools/call' }), undefined);
    assert.equal(cancelledRequestId([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }]), undefined);
  });

  it('keys callers by subject and client, and all anonymous callers alike', () => {
    assert.equal(callerKey({}), '');
    assert.notEqual(callerKey({ subject: 'ada', client: 'a' }), callerKey({ subject: 'ada', client: 'b' }));
    assert.notEqual(callerKey({ subject: 'ada', client: 'a' }), callerKey({ subject: 'bob', client: 'a' }));
    assert.equal(callerKey({ subject: 'ada', client: 'a' }), callerKey({ subject: 'ada', client: 'a' }));
  });

  it('asks for a stream only for a tools/call with a progress token', () => {
    assert.equal(wantsProgress({ method: 'tools/call', params: { name: 'x', _meta: { progressToken: 1 } } }), true);
    assert.equal(wantsProgress({ method: 'tools/call', params: { name: 'x' } }), false);
    assert.equal(wantsProgress([{ method: 'tools/list' }, { method: 'tools/call', params: { _meta: { progressToken: 'a' } } }]), true);
    assert.equal(hasToolCall({ method: 'tools/list' }), false);
    assert.equal(hasToolCall([{ method: 'tools/call' }]), true);
  });
});

describe('LogThrottle', () => {
  it('lets one line per key and interval through and counts the ones held back', () => {
    const throttle = new LogThrottle(1_000);
    assert.equal(throttle.admit('a', 0), 0);
    assert.equal(throttle.admit('a', 10), undefined);
    assert.equal(throttle.admit('a', 20), undefined);
    assert.equal(throttle.admit('b', 20), 0, 'another key has its own budget');
    assert.equal(throttle.admit('a', 1_000), 2);
    assert.equal(throttle.admit('a', 1_500), undefined);
  });
});
