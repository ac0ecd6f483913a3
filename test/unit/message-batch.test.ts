import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_BATCH_CHARS, MAX_BATCH_MESSAGES, MessageBatcher, messagesOf } from '../../lib/edge/message-batch.js';

/** A publish that records each text it is given and answers with `listeners` (or fails with `failure`). */
function recorder(listeners = 1, failure?: Error) {
  const published: string[] = [];
  const publish = async (text: string) => {
    published.push(text);
    if (failure) throw failure;
    return listeners;
  };
  return { published, batcher: new MessageBatcher(publish) };
}

const message = (n: number) => JSON.stringify({ t: 'call', id: `id-${n}`, text: 'a "quoted"\nline' });

describe('messagesOf', () => {
  it('reads a plain message as itself, and a batch as its lines', () => {
    assert.deepEqual(messagesOf('{"t":"answer"}'), { messages: ['{"t":"answer"}'], dropped: 0 });
    assert.deepEqual(messagesOf('{"a":1}\n{"b":2}'), { messages: ['{"a":1}', '{"b":2}'], dropped: 0 });
  });

  it('reads at most MAX_BATCH_MESSAGES lines of one message and counts the rest as dropped', () => {
    const text = Array.from({ length: MAX_BATCH_MESSAGES + 5 }, (_, n) => message(n)).join('\n');
    const { messages, dropped } = messagesOf(text);
    assert.equal(messages.length, MAX_BATCH_MESSAGES);
    assert.equal(dropped, 5);
    assert.equal(messages[0], message(0));
  });

  it('keeps an empty line as a message of its own (the receiver refuses it as malformed)', () => {
    assert.deepEqual(messagesOf('{"a":1}\n\n{"b":2}').messages, ['{"a":1}', '', '{"b":2}']);
  });
});

describe('MessageBatcher', () => {
  it('sends the messages of one turn as one text, one per line, in order, and resolves each with its PUBLISH', async () => {
    const { published, batcher } = recorder(3);
    const sent = [batcher.send(message(1)), batcher.send(message(2)), batcher.send(message(3))];
    assert.deepEqual(published, [], 'nothing goes out before the end of the turn');
    assert.deepEqual(await Promise.all(sent), [3, 3, 3]);
    assert.deepEqual(published, [[message(1), message(2), message(3)].join('\n')]);
    // Each line is the JSON message it was: a line break inside a string stays escaped.
    assert.deepEqual(messagesOf(published[0]!).messages.map((line) => JSON.parse(line).id), ['id-1', 'id-2', 'id-3']);
  });

  it('sends a lone message as it is: what every receiver reads', async () => {
    const { published, batcher } = recorder();
    await batcher.send(message(1));
    assert.deepEqual(published, [message(1)]);
  });

  it('starts a new batch in the next turn', async () => {
    const { published, batcher } = recorder();
    const first = batcher.send(message(1));
    await nextTurn();
    const second = batcher.send(message(2));
    await Promise.all([first, second]);
    assert.deepEqual(published, [message(1), message(2)]);
  });

  it('sends a full batch at once: at most MAX_BATCH_MESSAGES messages in one', async () => {
    const { published, batcher } = recorder();
    const sent = Array.from({ length: MAX_BATCH_MESSAGES * 2 + 1 }, (_, n) => batcher.send(message(n)));
    assert.equal(published.length, 2, 'two full batches went out before the turn ended');
    await Promise.all(sent);
    assert.deepEqual(published.map((text) => messagesOf(text).messages.length), [MAX_BATCH_MESSAGES, MAX_BATCH_MESSAGES, 1]);
    assert.deepEqual(published.flatMap((text) => messagesOf(text).messages), Array.from({ length: MAX_BATCH_MESSAGES * 2 + 1 }, (_, n) => message(n)));
  });

  it('keeps a batch under MAX_BATCH_CHARS: a long message goes in a batch of its own', async () => {
    const { published, batcher } = recorder();
    const long = JSON.stringify({ t: 'answer', id: 'long', result: 'x'.repeat(MAX_BATCH_CHARS) });
    await Promise.all([batcher.send(message(1)), batcher.send(long), batcher.send(message(2))]);
    assert.deepEqual(published, [message(1), long, message(2)]);
    for (const text of published.filter((text) => text !== long)) assert.ok(text.length <= MAX_BATCH_CHARS);
  });

  it('rejects every message of a batch whose PUBLISH failed, with its error', async () => {
    const failure = new Error('NOPERM');
    const { published, batcher } = recorder(1, failure);
    const outcomes = await Promise.allSettled([batcher.send(message(1)), batcher.send(message(2))]);
    assert.equal(published.length, 1);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status === 'rejected' && outcome.reason),
      [failure, failure],
    );
  });

  it('sends what is queued at once on flush, and nothing twice', async () => {
    const { published, batcher } = recorder();
    const sent = [batcher.send(message(1)), batcher.send(message(2))];
    batcher.flush();
    assert.deepEqual(published, [`${message(1)}\n${message(2)}`]);
    batcher.flush();
    await Promise.all(sent);
    await nextTurn();
    assert.equal(published.length, 1);
  });
});
