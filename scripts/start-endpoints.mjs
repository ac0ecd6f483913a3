// The MCP endpoints of a flow file, and whether each one really serves: used by scripts/start.mjs so
// it announces a URL only after an MCP answer came from it.
import { request } from 'node:http';
import { createServer } from 'node:net';
import { clientName } from '../dist/lib/editor/client-commands.js';

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::']);
const PROBE_DEADLINE_MS = 20_000;

/**
 * Every enabled mcp-flow-server with the address its runtime listens on, and the name clients are
 * told to register it under: the one the editor's MCP sidebar gives (clientName of its MCP name).
 */
export function endpointsOf(flows) {
  const byId = new Map(flows.map((node) => [node.id, node]));
  return flows
    .filter((node) => node.type === 'mcp-flow-server' && !node.d && !byId.get(node.z)?.disabled)
    .flatMap((server) => {
      const runtime = byId.get(server.runtime);
      if (!runtime) return [];
      const bound = String(runtime.host ?? '').trim();
      const host = WILDCARD_HOSTS.has(bound) ? '127.0.0.1' : bound;
      const port = Number(runtime.port || 1881);
      const shownHost = host.includes(':') ? `[${host}]` : host;
      return [{ host, port, url: `http://${shownHost}:${port}${server.path || '/mcp'}`, name: clientName(String(server.serverName ?? '')), problem: undefined }];
    });
}

/** True when something else already listens on host:port. */
export function portInUse(host, port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error) => resolve(error.code === 'EADDRINUSE' || error.code === 'EACCES'));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(false)));
  });
}

function post(url, message) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(message);
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, json: parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function parse(text) {
  const trimmed = text.trim();
  const data = trimmed.startsWith('{') ? trimmed : trimmed.split('\n').find((line) => line.startsWith('data:'))?.slice(5);
  try {
    return data ? JSON.parse(data) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Asks the endpoint to initialize until it answers as an MCP server (it starts just after Node-RED's
 * "Started flows"), then lists its tools. `tools` is undefined when listing needs a sign-in.
 */
export async function probeEndpoint(url) {
  const deadline = Date.now() + PROBE_DEADLINE_MS;
  let problem = 'no answer';
  while (Date.now() < deadline) {
    try {
      const init = await post(url, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'npm-start', version: '1' } },
      });
      if (init.status === 200 && init.json?.result?.protocolVersion) {
        const listed = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
        const tools = listed.status === 200 ? (listed.json?.result?.tools ?? []).map((tool) => tool.name) : undefined;
        return { tools };
      }
      problem = `HTTP ${init.status} from the endpoint; see the Node-RED log and the node status`;
    } catch (error) {
      problem = `${error.code ?? error.message}; see the Node-RED log and the node status`;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { problem };
}
