import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerContext } from '@modelcontextprotocol/server';
import { CallStream, openCallStream } from '../../lib/mcp/call-stream.js';

type Sent = { method: string; params?: Record<string, unknown> };

function recordingNotify() {
  const sent: Sent[] = [];
  const notify = (async (notification: Sent) => {
    sent.push(notification);
  }) as unknown as ServerContext['mcpReq']['notify'];
  return { sent, notify };
}

/** Just the parts of a handler context openCallStream reads. */
function handlerCtx(meta: Record<string, unknown> | undefined, envelope?: Record<string, unknown>): ServerContext {
  const { notify } = recordingNotify();
  return { mcpReq: { _meta: meta, ...(envelope ? { envelope } : {}), notify } } as unknown as ServerContext;
}

describe('CallStream', () => {
  it('sends progress with the client token, total and message only when given', () => {
    const { sent, notify } = recordingNotify();
    const stream = new CallStream(notify, 'tok', undefined);
    assert.equal(stream.progress({ progress: 1 }), true);
    assert.equal(stream.progress({ progress: 2, total: 4, message: 'half' }), true);
    assert.deepEqual(sent, [
      { method: 'notifications/progress', params: { progressToken: 'tok', progress: 1 } },
      { method: 'notifications/progress', params: { progressToken: 'tok', progress: 2, total: 4, message: 'half' } },
    ]);
  });

  it('sends no progress without a token, and log lines only at or above the chosen level', () => {
    const { sent, notify } = recordingNotify();
    const stream = new CallStream(notify, undefined, 'warning');
    assert.equal(stream.progress({ progress: 1 }), false);
    assert.equal(stream.log({ level: 'info', data: 'quiet' }), false);
    assert.equal(stream.log({ level: 'error', data: { code: 7 }, logger: 'db' }), true);
    assert.deepEqual(sent, [{ method: 'notifications/message', params: { level: 'error', data: { code: 7 }, logger: 'db' } }]);
  });

  it('swallows a failed send (the client went away)', async () => {
    const notify = (() => Promise.reject(new Error('closed'))) as unknown as ServerContext['mcpReq']['notify'];
    const stream = new CallStream(notify, 1, 'debug');
    assert.equal(stream.log({ level: 'info', data: 'x' }), true);
    await new Promise((resolve) => setImmediate(resolve));
  });

  it('opens a stream only for a progress token or a log level: the 2026 envelope, else the 2025 caller level', () => {
    assert.equal(openCallStream(handlerCtx(undefined), undefined), undefined);
    assert.equal(openCallStream(handlerCtx({}), undefined), undefined);
    assert.equal(openCallStream(handlerCtx({ progressToken: 5 }), undefined)?.progressToken, 5);
    assert.equal(openCallStream(handlerCtx({ progressToken: { bad: true } }), undefined), undefined);
    assert.equal(openCallStream(handlerCtx({}), 'notice')?.logLevel, 'notice');
    const modern = openCallStream(handlerCtx({}, { 'io.modelcontextprotocol/logLevel': 'error' }), 'debug');
    assert.equal(modern?.logLevel, 'error', 'a 2026 request names its own level');
    assert.equal(openCallStream(handlerCtx({}, {}), 'debug'), undefined, 'a 2026 request without a level gets no lines');
    assert.equal(openCallStream(handlerCtx({}, { 'io.modelcontextprotocol/logLevel': 'loud' }), undefined), undefined);
  });

  it('drops notifications while what waits for the client is past the bound, and tells the count once at the end', async () => {
    const { sent, notify } = recordingNotify();
    const response = { writableLength: 0 };
    const dropped: number[] = [];
    const stream = new CallStream(notify, 'tok', 'info', { maxBacklogBytes: 100, response, onDropped: (count) => dropped.push(count) });
    // A line longer than the bound goes out when nothing waits: it is the flow's own message.
    assert.equal(stream.log({ level: 'info', data: 'x'.repeat(200) }), true);
    await new Promise((resolve) => setImmediate(resolve));
    response.writableLength = 90;
    assert.equal(stream.log({ level: 'info', data: 'too much' }), false);
    assert.equal(stream.progress({ progress: 1 }), false);
    assert.equal(stream.droppedCount, 2);
    response.writableLength = 0;
    assert.equal(stream.progress({ progress: 2 }), true);
    await stream.end();
    assert.deepEqual(dropped, [2]);
    assert.deepEqual(sent.at(-1), {
      method: 'notifications/message',
      params: { level: 'warning', logger: 'node-red-mcp', data: '2 progress reports and log lines of this call were dropped: the client did not read them as fast as the flow wrote them (at most 0 KiB wait per call).' },
    });
  });

  it('counts what was handed over and not yet sent, for a call without a response (the editor)', async () => {
    const pending: Array<() => void> = [];
    const notify = (() => new Promise<void>((resolve) => pending.push(resolve))) as unknown as ServerContext['mcpReq']['notify'];
    const stream = new CallStream(notify, undefined, 'debug', { maxBacklogBytes: 120 });
    assert.equal(stream.log({ level: 'info', data: 'a'.repeat(50) }), true);
    assert.equal(stream.log({ level: 'info', data: 'b'.repeat(50) }), false, 'the first is not sent yet');
    for (const resolve of pending.splice(0)) resolve();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stream.log({ level: 'info', data: 'c'.repeat(50) }), true);
  });

  it('says nothing at the end when nothing was dropped, and no notice to a client that asked only for errors', async () => {
    const { sent, notify } = recordingNotify();
    const quiet = new CallStream(notify, 'tok', 'error', { maxBacklogBytes: 10, response: { writableLength: 10 } });
    await quiet.end();
    assert.equal(quiet.progress({ progress: 1 }), false);
    await quiet.end();
    assert.deepEqual(sent, [], 'an error-level client gets no warning');
  });
});
