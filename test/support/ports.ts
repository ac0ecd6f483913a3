import { createServer, type Server } from 'node:net';

/**
 * Ports this process has handed out. The kernel may offer a port again as soon as it is closed, so a
 * test that takes two ports and then starts redis-server or the IdP (which take one each) could see two
 * of them collide, and a Node-RED listener would then fail to start; never hand out the same port twice.
 */
const handedOut = new Set<number>();

/** A port that was free a moment ago on loopback (the kernel picks it; we close and reuse it). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await kernelPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Listens on `port` of loopback; rejects when the port is taken, instead of throwing later. */
export function listenOnLoopback(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
