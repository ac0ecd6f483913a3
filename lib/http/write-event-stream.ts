import type { ServerResponse } from 'node:http';
import { writeWebResponse } from './web-exchange.js';

/**
 * Writes a web `Response` to the Node response: an event stream chunk by chunk as the SDK produces
 * it (progress and log notifications must reach the client while the call runs), anything else
 * whole. A client that hangs up cancels the stream, which ends the SDK's side of it.
 */
export async function writeAnyWebResponse(res: ServerResponse, response: Response): Promise<void> {
  if (response.body === null || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return writeWebResponse(res, response);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => undefined);
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
}
