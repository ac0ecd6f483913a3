// Baseline R, the machine's floor: a raw node:http server that answers the bench's JSON-RPC
// tools/call from memory, with no MCP SDK, no Node-RED and no checks beyond reading the call. It
// takes the same request bytes as the palette's Local endpoint and writes the same answer shape for
// the era under measurement (on 2026-07-28 `resultType` and the server's identity in `_meta`), as
// one JSON body with its length. Whatever a call costs above this is the price of everything else.
// Usage: node raw-server.mjs <port> <legacy|modern>
// Prints `listening <port>` when ready; exits on SIGTERM.
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);
const modern = process.argv[3] === 'modern';
const SERVER_INFO = { name: 'raw', version: '1.0.0' };

function answer(request) {
  if (request?.method === 'tools/call') {
    const result = { content: [{ type: 'text', text: String(request.params?.arguments?.text ?? '') }] };
    return { result: modern ? { ...result, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } } : result, jsonrpc: '2.0', id: request.id };
  }
  // The bench checks what a server lists before loading it.
  if (request?.method === 'tools/list') return { result: { tools: [{ name: 'echo_0', inputSchema: { type: 'object' } }] }, jsonrpc: '2.0', id: request.id };
  // Readiness probes (ping) and anything else: an empty result.
  return { result: {}, jsonrpc: '2.0', id: request?.id ?? null };
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let request;
    try {
      request = JSON.parse(Buffer.concat(chunks).toString());
    } catch {
      res.writeHead(400).end();
      return;
    }
    const body = JSON.stringify(answer(request));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
