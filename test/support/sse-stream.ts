import { request } from 'node:http';

/** One POST whose answer is read message by message as it arrives (an SSE stream, or one JSON body). */
export interface OpenStream {
  readonly status: number;
  readonly contentType: string;
  /** The next JSON-RPC message on the stream; rejects when the stream ends without one. */
  next(): Promise<any>;
  /** Hangs up, as a client that gives up. */
  close(): void;
}

/**
 * POSTs `body` and resolves once the response headers are in, so a test can read the server's
 * requests on a 2025-era call stream, answer them elsewhere, and then read the final result.
 */
export function openStream(url: string, body: unknown, headers: Record<string, string>): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const messages: any[] = [];
    const waiting: Array<{ resolve: (message: any) => void; reject: (error: Error) => void }> = [];
    let ended = false;
    let buffer = '';
    const wake = () => {
      while (waiting.length > 0 && messages.length > 0) waiting.shift()!.resolve(messages.shift());
      if (ended) for (const waiter of waiting.splice(0)) waiter.reject(new Error('the stream ended without another message'));
    };
    const req = request(url, { method: 'POST', headers }, (res) => {
      const contentType = String(res.headers['content-type'] ?? '');
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        if (!contentType.includes('text/event-stream')) return;
        // Events end with a blank line; only data lines carry messages.
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n');
          if (data !== '') messages.push(JSON.parse(data));
        }
        wake();
      });
      const finish = () => {
        if (!contentType.includes('text/event-stream') && buffer.trim() !== '') messages.push(JSON.parse(buffer));
        ended = true;
        wake();
      };
      res.on('end', finish);
      res.on('close', finish);
      resolve({
        status: res.statusCode ?? 0,
        contentType,
        next: () => new Promise((resolveNext, rejectNext) => {
          waiting.push({ resolve: resolveNext, reject: rejectNext });
          wake();
        }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
