import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatAuditLine, toolCallAudit } from '../../lib/auth/audit.js';
import { logWithoutStack } from '../../lib/core/logger.js';

describe('formatAuditLine', () => {
  it('is the event as one JSON object with its time last, as an ISO string', () => {
    const event = toolCallAudit({
      tool: 'add_numbers',
      endpoint: '/mcp',
      outcome: 'success',
      caller: { subject: 'u-1', client: 'claude', session: 'abcdefabcdef' },
      durationMs: 12.4,
      responseBytes: 20,
      mode: 'flow',
    });
    assert.ok(event);
    const before = Date.now();
    const line = formatAuditLine(event);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), [...Object.keys(event), 'time']);
    assert.deepEqual({ ...parsed, time: undefined }, { ...event, time: undefined });
    assert.match(String(parsed['time']), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(Date.parse(String(parsed['time'])) >= before - 1000);
    assert.ok(!line.includes('\n'), 'one line');
  });

  it('escapes what the event holds, so a hostile tool name cannot add a field or a line', () => {
    const line = formatAuditLine({ event: 'mcp.tool_call', outcome: 'unknown_tool', tool: 'x","time":"forged"}\n{"event":"y', durationMs: 0 });
    const parsed = JSON.parse(line) as Record<string, unknown>;
    assert.equal(parsed['tool'], 'x","time":"forged"}\n{"event":"y');
    assert.notEqual(parsed['time'], 'forged');
    assert.ok(!line.includes('\n'));
  });
});

describe('logWithoutStack', () => {
  it('hands the line to the node unchanged and captures no stack while it logs', () => {
    const lines: string[] = [];
    let stackInside: string | undefined;
    const limit = Error.stackTraceLimit;
    logWithoutStack(
      {
        log(line: string) {
          lines.push(line);
          stackInside = new Error(line).stack;
        },
      },
      '{"event":"mcp.tool_call"}',
    );
    assert.deepEqual(lines, ['{"event":"mcp.tool_call"}']);
    assert.equal(stackInside, 'Error: {"event":"mcp.tool_call"}', 'no frames');
    assert.equal(Error.stackTraceLimit, limit, 'the limit is restored');
    assert.ok((new Error('after').stack ?? '').includes('\n    at '), 'stacks are captured again afterwards');
  });

  it('restores the stack limit when a log handler throws, and lets the error through', () => {
    const limit = Error.stackTraceLimit;
    assert.throws(
      () =>
        logWithoutStack(
          {
            log() {
              throw new Error('handler failed');
            },
          },
          'line',
        ),
      /handler failed/,
    );
    assert.equal(Error.stackTraceLimit, limit);
  });
});

describe('logWithoutStack where the stack limit cannot be changed', () => {
  it('writes the line all the same', () => {
    const descriptor = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit');
    assert.ok(descriptor);
    // As under node --frozen-intrinsics: assigning the limit throws in strict code.
    Object.defineProperty(Error, 'stackTraceLimit', { value: descriptor.value, writable: false, configurable: true });
    try {
      const lines: string[] = [];
      logWithoutStack({ log: (line: string) => lines.push(line) }, 'the line');
      assert.deepEqual(lines, ['the line']);
    } finally {
      Object.defineProperty(Error, 'stackTraceLimit', descriptor);
    }
    assert.equal(Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit')?.writable, true);
  });
});
