import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The web `Request` the SDK's transport reads for one Node request whose body was already read and
 * parsed: method, URL and headers only. Carrying no body and no signal of its own keeps a pending
 * call from holding a second copy of the body and two more abort signals (the connection's own
 * close is watched elsewhere). Throws a TypeError when the Host header makes no valid URL.
 */
export function bodylessWebRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  // The body is passed on parsed, so the length of one that is not there would only mislead.
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers });
}

/** Writes a complete (non-streaming) web `Response` to the Node response. */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = response.body === null ? undefined : Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  if (body !== undefined) headers['content-length'] = String(body.byteLength);
  res.writeHead(response.status, headers);
  res.end(body);
}
