// Load generation (autocannon) and the small probes around it.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import autocannon from 'autocannon';

export const MCP_HEADERS = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
});

/**
 * The protocol revision the measured requests speak (BENCH_ERA): `legacy` is 2025-11-25, what most
 * clients send; `modern` is 2026-07-28, what Claude Code speaks to a server that offers it. Probes
 * (readiness, the /ctl tools) stay on 2025-11-25.
 */
export const ERA = process.env.BENCH_ERA === 'modern' ? 'modern' : 'legacy';
const MODERN_REVISION = '2026-07-28';
// The envelope the official client puts on every 2026-07-28 request.
const MODERN_ENVELOPE = Object.freeze({
  'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

/** Body and extra headers of one measured request, in the era under measurement. */
export function rpc(id, method, params) {
  if (ERA === 'legacy') return { body: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params && { params }) }), headers: {} };
  // Mcp-Name repeats the tool or prompt name, or the URI of a resources/read.
  const name = params?.name ?? params?.uri;
  const headers = { 'mcp-protocol-version': MODERN_REVISION, 'mcp-method': method, ...(name && { 'mcp-name': name }) };
  return { body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: MODERN_ENVELOPE } }), headers };
}

export const CALL = rpc(1, 'tools/call', { name: 'echo_0', arguments: { text: 'hi' } });
export const LIST = rpc(1, 'tools/list');
export const READ = rpc(1, 'resources/read', { uri: 'bench://r-0' });
/** A read of the URI template bench://t/{id} (flows.mjs READ_TEMPLATE_URI). */
export const READ_TEMPLATED = rpc(1, 'resources/read', { uri: 'bench://t/hi' });
/** A read of the flow-answered MCP Apps view every content endpoint serves (flows.mjs READ_VIEW_URI). */
export const READ_VIEW = rpc(1, 'resources/read', { uri: 'ui://bench/view' });
export const GET_PROMPT = rpc(1, 'prompts/get', { name: 'p_0', arguments: { who: 'hi' } });

/** The JSON-RPC message in a response body, whether plain JSON or one SSE `data:` line. */
export function parseRpc(body) {
  const trimmed = String(body).trim();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed);
  const data = trimmed.split('\n').find((line) => line.startsWith('data:'));
  return data ? JSON.parse(data.slice(5)) : undefined;
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });

/**
 * One POST; resolves with status, headers and body text. A keep-alive socket the server closed while
 * it sat idle (its keep-alive timeout, e.g. during the minute of the bare-SDK pending reference)
 * resets the next request on it before the server read it: that request is sent once more on a
 * fresh socket, as Node's http documentation advises (`request.reusedSocket`).
 */
export function post(url, body, headers = {}, { agent = keepAlive, timeoutMs = 30_000 } = {}, retried = false) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...MCP_HEADERS, ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => {
      if (!retried && req.reusedSocket && error.code === 'ECONNRESET') resolve(post(url, body, headers, { agent, timeoutMs }, true));
      else reject(error);
    });
    req.end(body);
  });
}

/** Calls one tool and returns its parsed JSON-RPC answer. */
export async function callTool(url, name, args, headers = {}, options = {}) {
  const response = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }), headers, options);
  if (response.status !== 200) throw new Error(`${name} on ${url}: HTTP ${response.status} ${response.body.slice(0, 300)}`);
  return parseRpc(response.body);
}

/** The text of a tool result, parsed as JSON when it is JSON. */
export function resultValue(message) {
  if (message?.error) throw new Error(`JSON-RPC error ${message.error.code}: ${message.error.message}`);
  const text = message?.result?.content?.[0]?.text;
  if (message?.result?.isError) throw new Error(`tool error: ${text}`);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
export function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), i.e. 11 and 12 after the command name.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** autocannon options for one scenario: every answer must equal `expectBody` (mismatches are counted). */
export function loadOptions({ url, body, headers = {}, expectBody, connections }) {
  return {
    url,
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers },
    body,
    connections,
    pipelining: 1,
    timeout: 20,
    ...(expectBody !== undefined ? { expectBody } : {}),
  };
}

export async function warmUp(options, seconds) {
  if (seconds > 0) await autocannon({ ...options, duration: seconds });
}

/**
 * One measured slice: `seconds` of load, with the CPU seconds the server process(es) and this
 * process spent meanwhile. The raw result keeps its histograms for `combineSlices`.
 */
export async function measureSlice(options, seconds, serverPids = []) {
  const serverBefore = serverPids.map(processCpuSeconds);
  const selfBefore = process.cpuUsage();
  const raw = await autocannon({ ...options, duration: seconds, skipAggregateResult: true });
  const self = process.cpuUsage(selfBefore);
  const serverAfter = serverPids.map(processCpuSeconds);
  const byProcess = serverAfter.map((after, i) => (after ?? NaN) - (serverBefore[i] ?? NaN));
  const serverCpuSeconds = byProcess.reduce((sum, seconds) => sum + seconds, 0);
  return { raw, calls: raw.totalCompletedRequests, seconds: raw.duration, serverCpuSeconds, serverCpuSecondsByProcess: byProcess, selfCpuSeconds: (self.user + self.system) / 1e6 };
}

/** Calls/s over all slices, latency percentiles (ms) of all answers together, CPU per call, faults. */
export function combineSlices(slices, options) {
  const combined = autocannon.aggregateResult(slices.map((slice) => slice.raw), options);
  const calls = slices.reduce((sum, slice) => sum + slice.calls, 0);
  const seconds = slices.reduce((sum, slice) => sum + slice.seconds, 0);
  const serverCpu = slices.reduce((sum, slice) => sum + slice.serverCpuSeconds, 0);
  const selfCpu = slices.reduce((sum, slice) => sum + slice.selfCpuSeconds, 0);
  // Per server process (in the order of the scenario's serverPids): where a multi-process call's CPU goes.
  const byProcess = slices[0]?.serverCpuSecondsByProcess.map((_, i) => slices.reduce((sum, slice) => sum + slice.serverCpuSecondsByProcess[i], 0)) ?? [];
  return {
    callsPerSecond: calls / seconds,
    p50: combined.latency.p50,
    p99: combined.latency.p99,
    calls,
    durationSeconds: seconds,
    rounds: slices.map((slice) => slice.calls / slice.seconds),
    errors: combined.errors,
    timeouts: combined.timeouts,
    non2xx: combined.non2xx,
    mismatches: combined.mismatches,
    serverCpuUsPerCall: calls > 0 ? (serverCpu * 1e6) / calls : undefined,
    serverCpuUsPerCallByProcess: calls > 0 ? byProcess.map((seconds) => (seconds * 1e6) / calls) : undefined,
    loadGeneratorCpuUsPerCall: calls > 0 ? (selfCpu * 1e6) / calls : undefined,
  };
}

/** Unloaded latency samples (ms, µs precision): `count` requests one after another on one keep-alive connection, after 20 unmeasured. */
export async function latencySamples(url, body, headers = {}, count = 200) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples = [];
  try {
    for (let i = 0; i < count + 20; i += 1) {
      const started = performance.now();
      const response = await post(url, body, headers, { agent });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      if (i >= 20) samples.push(performance.now() - started);
    }
  } finally {
    agent.destroy();
  }
  return samples;
}

/** p50 and p99 of latency samples (ms). */
export function latencyPercentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p99: at(0.99), count: sorted.length };
}

/** Unloaded latency: `count` requests one after another on one keep-alive connection (ms, µs precision). */
export async function sequentialLatency(url, body, headers = {}, count = 200) {
  return latencyPercentiles(await latencySamples(url, body, headers, count));
}

export { autocannon };
