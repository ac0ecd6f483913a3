import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';

/**
 * The suite's scenarios connect with its own MCP client, which always offers the newest revision it
 * knows. To run a scenario at an older revision on the wire, this loopback proxy rewrites the
 * `protocolVersion` of every `initialize` request to the revision under test: the server negotiates
 * that revision and the client then sends it in `MCP-Protocol-Version` on each later request, as a
 * client that only knew that revision would. Nothing else changes; Host and Origin naming the proxy
 * are pointed at the server, so its DNS-rebinding checks see exactly what the client meant.
 */
export interface RevisionPinProxy {
  readonly url: string;
  /** The protocolVersion of every initialize answer, so the caller can prove the pin held. */
  readonly negotiated: ReadonlySet<string>;
  close(): Promise<void>;
}

export async function startRevisionPinProxy(target: URL, revision: string): Promise<RevisionPinProxy> {
  let ownHost = '';
  const negotiated = new Set<string>();
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const pinned = incoming.method === 'POST' ? pinInitialize(Buffer.concat(chunks), revision) : { body: Buffer.concat(chunks), initialize: false };
      const headers = retarget(incoming.headers, ownHost, target.host);
      if (headers['content-length'] !== undefined || pinned.body.length > 0) headers['content-length'] = String(pinned.body.length);
      const upstream = request({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        if (pinned.initialize) {
          const answerChunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
          answer.on('end', () => {
            const version = negotiatedVersion(Buffer.concat(answerChunks).toString('utf8'));
            if (version) negotiated.add(version);
          });
        }
        answer.pipe(outgoing);
      });
      upstream.on('error', () => outgoing.destroy());
      // A client that hangs up (an SSE stream it is done with) hangs up on the server too.
      outgoing.on('close', () => upstream.destroy());
      upstream.end(pinned.body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('revision pin proxy has no address');
  ownHost = `127.0.0.1:${address.port}`;
  return {
    url: `http://${ownHost}${target.pathname}`,
    negotiated,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The body with each `initialize` request (single or batched) asking for `revision`; other bodies unchanged. */
export function pinInitialize(body: Buffer, revision: string): { body: Buffer; initialize: boolean } {
  let message: unknown;
  try {
    message = JSON.parse(body.toString('utf8'));
  } catch {
    return { body, initialize: false };
  }
  let initialize = false;
  for (const entry of Array.isArray(message) ? message : [message]) {
    if (entry && typeof entry === 'object' && entry.method === 'initialize' && entry.params && typeof entry.params === 'object') {
      entry.params.protocolVersion = revision;
      initialize = true;
    }
  }
  return initialize ? { body: Buffer.from(JSON.stringify(message)), initialize } : { body, initialize };
}

/** result.protocolVersion of an initialize answer, plain JSON or the data line of an SSE event. */
function negotiatedVersion(text: string): string | undefined {
  const candidates = [text, ...text.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5))];
  for (const candidate of candidates) {
    try {
      const version = JSON.parse(candidate)?.result?.protocolVersion;
      if (typeof version === 'string') return version;
    } catch {
      // not this one
    }
  }
  return undefined;
}

function retarget(headers: IncomingHttpHeaders, ownHost: string, targetHost: string): IncomingHttpHeaders {
  const copy: IncomingHttpHeaders = { ...headers };
  if (copy.host === ownHost) copy.host = targetHost;
  if (copy.origin === `http://${ownHost}`) copy.origin = `http://${targetHost}`;
  return copy;
}
