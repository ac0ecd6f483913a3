import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort, listenOnLoopback } from './ports.js';

/**
 * A TCP relay of our own in front of a real server (redis-server), so a test can hold what its
 * client sends at a chosen moment and learn when something arrived: "the token lookup has reached
 * Redis and is waiting". Nothing is answered or altered; held bytes are delivered on `release`.
 */
export interface TcpGate {
  readonly port: number;
  /** Holds client-to-server bytes from now on; resolves when the first held bytes arrive. */
  hold(): Promise<void>;
  /** Delivers everything held, in order, and relays freely again. */
  release(): void;
  stop(): Promise<void>;
}

export async function startTcpGate(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpGate> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let held: Array<{ upstream: Socket; chunk: Buffer }> | undefined;
  let onHeld: (() => void) | undefined;

  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (!held) {
        upstream.write(chunk);
        return;
      }
      held.push({ upstream, chunk });
      onHeld?.();
      onHeld = undefined;
    });
    upstream.pipe(client);
    client.once('end', () => upstream.end());
  });
  await listenOnLoopback(server, port);

  return {
    port,
    hold() {
      held = [];
      return new Promise<void>((resolve) => {
        onHeld = resolve;
      });
    },
    release() {
      const pending = held ?? [];
      held = undefined;
      for (const { upstream, chunk } of pending) upstream.write(chunk);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
