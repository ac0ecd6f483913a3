// Baselines A and B: the smallest server the official SDK v2 documents — `createMcpHandler` with a
// factory that builds an `McpServer` and registers `tools` echo tools on it (so once per request),
// served by node:http through `toNodeHandler`.
// Usage: node [--expose-gc] baseline-server.mjs <tools> <port> [hold]
// With `hold`, the server also has the tools the pending-calls check drives (as the bench's Node-RED
// flows do): `hold` (answers only when released), `held`, `release` and `heap` (memory after GC),
// so the SDK's own memory per pending call can be measured the same way.
// Prints `listening <port>` when ready; exits on SIGTERM.
import { createServer } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';

const toolCount = Number(process.argv[2] ?? 1);
const port = Number(process.argv[3] ?? 0);
const holdMode = process.argv[4] === 'hold';

const held = [];
const text = (value) => ({ content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }] });

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'baseline', version: '1.0.0' });
  for (let i = 0; i < toolCount; i += 1) {
    server.registerTool(
      `echo_${i}`,
      { description: `echo tool ${i}`, inputSchema: z.object({ text: z.string() }) },
      async ({ text: value }) => text(value),
    );
  }
  if (holdMode) {
    server.registerTool('hold', { inputSchema: z.object({ text: z.string() }) }, ({ text: value }) => new Promise((resolve) => held.push(() => resolve(text(value)))));
    server.registerTool('held', { inputSchema: z.object({}) }, async () => text({ held: held.length }));
    server.registerTool('release', { inputSchema: z.object({}) }, async () => {
      const waiting = held.splice(0);
      for (const release of waiting) release();
      return text({ released: waiting.length });
    });
    server.registerTool('heap', { inputSchema: z.object({}) }, async () => {
      if (typeof globalThis.gc === 'function') {
        globalThis.gc();
        globalThis.gc();
      }
      const m = process.memoryUsage();
      return text({ heapUsed: m.heapUsed, heapTotal: m.heapTotal, rss: m.rss, external: m.external, held: held.length });
    });
  }
  return server;
});
const node = toNodeHandler(handler);
const http = createServer((req, res) => {
  node(req, res).catch(() => {
    if (!res.headersSent) res.writeHead(500).end();
  });
});
http.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening ${http.address().port}\n`);
});
process.on('SIGTERM', () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
});
