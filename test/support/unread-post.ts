import { connect, type Socket } from 'node:net';

// A client that sends a POST and does not read the answer, for tests of what a server holds for it:
// raw HTTP/1.1 on its own connection, its socket paused at once.

/**
 * POSTs `body` to /mcp on `port` and reads nothing. `sockets` is the server's list of accepted
 * connections (filled by its 'connection' listener): `server()` is this request's server side.
 */
export function postWithoutReading(port: number, sockets: readonly Socket[], body: unknown, headers: Record<string, string>): { client: Socket; server: () => Socket } {
  const known = sockets.length;
  const client = connect(port, '127.0.0.1');
  const text = JSON.stringify(body);
  const head = [
    'POST /mcp HTTP/1.1',
    `host: 127.0.0.1:${port}`,
    'content-type: application/json',
    'accept: application/json, text/event-stream',
    `content-length: ${Buffer.byteLength(text)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  client.write(head + text);
  client.pause();
  return { client, server: () => sockets[known]! };
}

/** Reads the response (the client starts reading again) until `done` says it is complete. */
export function readUntil(client: Socket, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    client.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('utf8');
      if (!done(text)) return;
      client.destroy();
      resolve(text);
    });
    client.on('error', reject);
    client.resume();
  });
}

/** An event stream ends with the answer: the chunked body's last chunk. */
export const streamEnded = (text: string): boolean => text.endsWith('\r\n0\r\n\r\n');

/** The JSON-RPC messages of the event stream in a raw (chunked) response. */
export function messagesIn(raw: string): Array<{ method?: string; params?: any; result?: any }> {
  return raw
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)));
}

export async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
