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

/**
 * Body and extra headers of one measured request, in the era under measurement. A `params._meta` of
 * the caller's own (a progressToken, the client capabilities of a call that is asked) is kept; on
 * 2026-07-28 the envelope comes first and the caller's members after it (they win).
 */
export function rpc(id, method, params) {
  if (ERA === 'legacy') return { body: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params && { params }) }), headers: {} };
  // Mcp-Name repeats the tool or prompt name, or the URI of a resources/read.
  const name = params?.name ?? params?.uri;
  const headers = { 'mcp-protocol-version': MODERN_REVISION, 'mcp-method': method, ...(name && { 'mcp-name': name }) };
  const _meta = params?._meta ? { ...MODERN_ENVELOPE, ...params._meta } : MODERN_ENVELOPE;
  return { body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }), headers };
}

export const CALL = rpc(1, 'tools/call', { name: 'echo_0', arguments: { text: 'hi' } });
export const LIST = rpc(1, 'tools/list');
export const READ = rpc(1, 'resources/read', { uri: 'bench://r-0' });
/** A read of the URI template bench://t/{id} (flows.mjs READ_TEMPLATE_URI). */
export const READ_TEMPLATED = rpc(1, 'resources/read', { uri: 'bench://t/hi' });
/** A read of the flow-answered MCP Apps view every content endpoint serves (flows.mjs READ_VIEW_URI). */
export const READ_VIEW = rpc(1, 'resources/read', { uri: 'ui://bench/view' });
export const GET_PROMPT = rpc(1, 'prompts/get', { name: 'p_0', arguments: { who: 'hi' } });
/** The progressToken of a tools/call whose progress is measured: the answer is an SSE stream, its progress then its result. */
export const PROGRESS_TOKEN = 'bench-progress';
/** A tools/call of `name` with a progressToken (flows.mjs progress_0 reports 1 of 1, then answers `hi`). */
export const progressCall = (name) => rpc(1, 'tools/call', { name, arguments: { text: 'hi' }, _meta: { progressToken: PROGRESS_TOKEN } });
/** The same call with a progressToken as Claude Code and Codex send with every call: a new token each time, here a fixed one of the same shape. */
export const tokenCall = (name) => rpc(1, 'tools/call', { name, arguments: { text: 'hi' }, _meta: { progressToken: 7 } });

/**
 * The messages of an SSE response body, in order: each event's `data:` line(s) parsed as JSON (a
 * plain JSON body gives itself).
 */
export function sseMessages(body) {
  const trimmed = String(body).trim();
  if (trimmed.startsWith('{')) return [JSON.parse(trimmed)];
  const messages = [];
  for (const event of trimmed.split(/\r?\n\r?\n/)) {
    const data = event.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5));
    if (data.length > 0) messages.push(JSON.parse(data.join('\n')));
  }
  return messages;
}

/**
 * The JSON-RPC answer in a response body, whether plain JSON or an SSE stream: the first message that
 * is a response (no `method`), so notifications (progress) and requests to the client sent before it
 * on the stream are passed over; a stream with none of those gives its first message, as before.
 */
export function parseRpc(body) {
  const messages = sseMessages(body);
  return messages.find((message) => message && typeof message === 'object' && !('method' in message)) ?? messages[0];
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

/**
 * autocannon options for one scenario: every answer must equal `expectBody`, or pass `verifyBody`
 * when given (an SSE stream whose bytes may differ per answer); mismatches are counted.
 */
export function loadOptions({ url, body, headers = {}, expectBody, verifyBody, connections }) {
  return {
    url,
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers },
    body,
    connections,
    pipelining: 1,
    timeout: 20,
    ...(verifyBody ? { verifyBody } : expectBody !== undefined ? { expectBody } : {}),
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

/**
 * A check for autocannon's verifyBody: the body equals `expected`, or (an SSE stream framed otherwise,
 * e.g. with a keep-alive comment) carries the same messages in the same order.
 */
export function sameMessages(expected) {
  const want = JSON.stringify(sseMessages(expected));
  return (body) => {
    if (body === expected) return true;
    try {
      return JSON.stringify(sseMessages(body)) === want;
    } catch {
      return false;
    }
  };
}

/** The client capabilities a 2026-07-28 call that is asked a form declares in its envelope. */
const ASKED_META = Object.freeze({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } });
/**
 * One 2026-07-28 exchange with a tool whose flow asks once (flows.mjs ask_0): the call, which must be
 * answered `input_required` asking what `answers` answers, with a requestState, then the retry with
 * `answers` and that state, which must be answered `hi`. Resolves true when both answers are right.
 */
export async function askExchange(url, tool, answers, agent) {
  const args = { text: 'hi' };
  const first = rpc(1, 'tools/call', { name: tool, arguments: args, _meta: ASKED_META });
  const asked = await post(url, first.body, first.headers, { agent });
  const question = asked.status === 200 ? parseRpc(asked.body)?.result : undefined;
  const keys = (object) => Object.keys(object ?? {}).sort().join();
  if (question?.resultType !== 'input_required' || keys(question.inputRequests) !== keys(answers) || typeof question.requestState !== 'string') return false;
  const retry = rpc(2, 'tools/call', { name: tool, arguments: args, inputResponses: answers, requestState: question.requestState, _meta: ASKED_META });
  const answered = await post(url, retry.body, retry.headers, { agent });
  const message = answered.status === 200 ? parseRpc(answered.body) : undefined;
  return message?.id === 2 && message.result?.content?.[0]?.text === 'hi' && !message.result.isError && (message.result.resultType ?? 'complete') === 'complete';
}

/**
 * Latency (ms) of `count` whole asking exchanges (two requests each), one after another on one
 * keep-alive connection, after 20 unmeasured; an exchange with a wrong answer is counted in `errors`
 * and left out of the samples.
 */
export async function askLatencySamples(url, tool, answers, count = 100) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples = [];
  let errors = 0;
  try {
    for (let i = 0; i < count + 20; i += 1) {
      const started = performance.now();
      const right = await askExchange(url, tool, answers, agent);
      const took = performance.now() - started;
      if (!right) errors += 1;
      else if (i >= 20) samples.push(took);
    }
  } finally {
    agent.destroy();
  }
  return { samples, errors };
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
