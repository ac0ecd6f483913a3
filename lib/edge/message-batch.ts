/**
 * Several hub↔edge messages in one Redis message. Under load a hub sends a site many calls at once
 * and the edge answers many at once; each PUBLISH costs the sender a command, Redis a command and
 * every subscriber a read and a parse, whatever its size. So the messages for one channel of one turn
 * of the event loop go out together, one JSON message per line: JSON.stringify never writes a raw line break, so a
 * line break can only be the separator, and a batch of one is the plain message every version reads.
 *
 * Only a receiver that said it reads batches is sent one (an edge in its announcement, a hub in each
 * call): an older one would refuse the whole text as one malformed message.
 */

/** Messages one batch holds at most; a receiver refuses lines past this many. */
export const MAX_BATCH_MESSAGES = 64;
/**
 * Characters one batch holds at most before it goes out: a bound on one Redis message, well under
 * what a receiver may be sent in one message anyway. A message longer than this goes alone.
 */
export const MAX_BATCH_CHARS = 256 * 1024;

/** The messages of one text a hub or edge received: a plain message is the one line. */
export function messagesOf(text: string): { readonly messages: readonly string[]; readonly dropped: number } {
  // The common case (a lone message) costs one scan, no array copy.
  if (!text.includes('\n')) return { messages: [text], dropped: 0 };
  const lines = text.split('\n');
  return lines.length <= MAX_BATCH_MESSAGES ? { messages: lines, dropped: 0 } : { messages: lines.slice(0, MAX_BATCH_MESSAGES), dropped: lines.length - MAX_BATCH_MESSAGES };
}

interface QueuedBatch {
  readonly lines: string[];
  chars: number;
  readonly sent: Promise<number>;
  resolve(listeners: number): void;
  reject(error: unknown): void;
}

/**
 * Messages for one channel, sent together at the end of the event loop's turn: setImmediate runs
 * after the turn's I/O callbacks, so every request that arrived with the first goes in its batch,
 * and one call at a time waits only for the rest of its own turn. (A group commit, which sends at
 * once while nothing is on its way to Redis, batched a third fewer messages under the bench's load
 * and ran slower.) Each `send` resolves or rejects with its batch's PUBLISH: how many subscribers got
 * it, or why it did not go out.
 */
export class MessageBatcher {
  private queued: QueuedBatch | undefined;

  constructor(private readonly publish: (text: string) => Promise<number>) {}

  /** Queues one JSON message (no raw line break: JSON.stringify's output). */
  send(message: string): Promise<number> {
    const queued = this.queued;
    if (queued && (queued.lines.length >= MAX_BATCH_MESSAGES || queued.chars + message.length > MAX_BATCH_CHARS)) this.flush();
    const batch = (this.queued ??= this.queue());
    batch.lines.push(message);
    batch.chars += message.length + 1;
    return batch.sent;
  }

  /** Sends what is queued now (the turn's end, a full batch, or the sender closing). */
  flush(): void {
    const batch = this.queued;
    if (!batch) return;
    this.queued = undefined;
    this.publish(batch.lines.length === 1 ? batch.lines[0]! : batch.lines.join('\n')).then(batch.resolve, batch.reject);
  }

  private queue(): QueuedBatch {
    let resolve!: (listeners: number) => void;
    let reject!: (error: unknown) => void;
    const sent = new Promise<number>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    const batch: QueuedBatch = { lines: [], chars: 0, sent, resolve, reject };
    setImmediate(() => {
      if (this.queued === batch) this.flush();
    });
    return batch;
  }
}
