// Scale checks on the local Node-RED: thousands of calls pending at once, and a long soak.
// Every call carries its own argument and JSON-RPC id, and each answer is matched to its call.
import { Agent, request } from 'node:http';
import { autocannon, CALL, callTool, MCP_HEADERS, parseRpc, post, resultValue, rpc } from './load.mjs';

const MAX_CONNECTING = 200;

async function heapOf(base) {
  return resultValue(await callTool(`${base}/ctl`, 'heap', {}, {}, { timeoutMs: 60_000 }));
}

async function heldOf(base) {
  return resultValue(await callTool(`${base}/ctl`, 'held', {})).held;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const WARM_UP_HOLDS = 200;

/** Holds `count` calls in the flow at once and releases them: every code path of a held call has run once. */
async function warmUpHolds({ url, tool, control, count }) {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const calls = Array.from({ length: count }, (_, i) => {
    const { body, headers } = rpc(i, 'tools/call', { name: tool, arguments: { text: `w-${i}` } });
    return post(url, body, headers, { agent, timeoutMs: 60_000 }).catch(() => undefined);
  });
  const deadline = Date.now() + 30_000;
  while ((await heldOf(control)) < count && Date.now() < deadline) await sleep(100);
  await callTool(`${control}/ctl`, 'release', {});
  await Promise.all(calls);
  agent.destroy();
}

/**
 * `count` calls to the /slow endpoint, whose flow holds each one until all have arrived; the heap is
 * read (after a full GC) before, while all are pending, and after they were answered.
 * Relayed (a hub in front of an edge): `url` and `tool` name the hub's endpoint and edge tool, `base`
 * is the hub (whose heap is the measure) and `control` the edge, whose flow holds and releases the
 * calls; the edge's heap is read too, before and while the calls are pending.
 */
export async function pendingTest({ base, count, capSeconds, log, snapshotDir, url = `${base}/slow`, tool = 'hold', control = base }) {
  const deadline = Date.now() + capSeconds * 1000;
  // Code that first runs with calls held (compiled once, kept for good) is not memory per call.
  await warmUpHolds({ url, tool, control, count: Math.min(WARM_UP_HOLDS, count) });
  const before = await heapOf(base);
  const controlBefore = control === base ? undefined : await heapOf(control);
  if (snapshotDir) {
    const { file } = resultValue(await callTool(`${base}/ctl`, 'snapshot', { dir: snapshotDir }, {}, { timeoutMs: 300_000 }));
    log(`  heap snapshot before: ${file}`);
  }
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const answers = new Uint8Array(count);
  const failures = new Map();
  let mismatched = 0;
  let connecting = 0;
  let wakers = [];
  const wake = () => {
    const current = wakers;
    wakers = [];
    for (const resume of current) resume();
  };
  const fail = (reason) => failures.set(reason, (failures.get(reason) ?? 0) + 1);

  const send = (i) =>
    new Promise((resolve) => {
      let counted = true;
      connecting += 1;
      const connected = () => {
        if (!counted) return;
        counted = false;
        connecting -= 1;
        wake();
      };
      const { body, headers } = rpc(i, 'tools/call', { name: tool, arguments: { text: `p-${i}` } });
      const req = request(url, { method: 'POST', agent, headers: { ...MCP_HEADERS, ...headers } }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          try {
            if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
            const message = parseRpc(Buffer.concat(chunks).toString());
            if (message?.error) throw new Error(`JSON-RPC ${message.error.code}`);
            const text = message?.result?.content?.[0]?.text;
            if (message.id !== i || text !== `p-${i}`) mismatched += 1;
            else answers[i] += 1;
          } catch (error) {
            fail(error.message);
          }
          resolve();
        });
      });
      req.on('socket', (socket) => (socket.connecting ? socket.once('connect', connected) : connected()));
      req.setTimeout(Math.max(1, deadline - Date.now()), () => req.destroy(new Error('timed out')));
      req.on('error', (error) => {
        connected();
        fail(error.message);
        resolve();
      });
      req.end(body);
    });

  const issuedAt = performance.now();
  const calls = [];
  for (let i = 0; i < count; i += 1) {
    while (connecting >= MAX_CONNECTING) await new Promise((resume) => wakers.push(resume));
    calls.push(send(i));
  }
  let held = 0;
  while (Date.now() < deadline) {
    held = await heldOf(control);
    if (held >= count || failures.size > 0) break;
    await sleep(250);
  }
  const issueSeconds = (performance.now() - issuedAt) / 1000;
  log(`  ${held} of ${count} calls pending in the flow after ${issueSeconds.toFixed(1)} s`);
  const during = await heapOf(base);
  const controlDuring = controlBefore ? await heapOf(control) : undefined;
  if (snapshotDir) {
    const { file } = resultValue(await callTool(`${base}/ctl`, 'snapshot', { dir: snapshotDir }, {}, { timeoutMs: 300_000 }));
    log(`  heap snapshot with the calls pending: ${file}`);
  }
  const releasedAt = performance.now();
  const { released } = resultValue(await callTool(`${control}/ctl`, 'release', {}));
  await Promise.all(calls);
  const answerSeconds = (performance.now() - releasedAt) / 1000;
  agent.destroy();
  // Closed sockets and the last answers' garbage take a moment to go; the lowest of three readings
  // over five seconds is the heap the process settles back to.
  let after;
  for (const wait of [1000, 2000, 2000]) {
    await sleep(wait);
    const reading = await heapOf(base);
    if (!after || reading.heapUsed < after.heapUsed) after = reading;
  }

  let answered = 0;
  let duplicated = 0;
  for (const n of answers) {
    if (n > 0) answered += 1;
    if (n > 1) duplicated += n - 1;
  }
  return {
    calls: count,
    pendingAtOnce: held,
    released,
    answered,
    lost: count - answered - mismatched,
    duplicated,
    mismatched,
    failures: Object.fromEntries(failures),
    issueSeconds,
    answerSeconds,
    heapBefore: before.heapUsed,
    heapPending: during.heapUsed,
    heapAfter: after.heapUsed,
    rssBefore: before.rss,
    rssPending: during.rss,
    rssAfter: after.rss,
    kbPerPendingCall: (during.heapUsed - before.heapUsed) / held / 1024,
    heapAfterDeltaMb: (after.heapUsed - before.heapUsed) / 1048576,
    ...(controlBefore && {
      control: { heapBefore: controlBefore.heapUsed, heapPending: controlDuring.heapUsed, kbPerPendingCall: (controlDuring.heapUsed - controlBefore.heapUsed) / held / 1024 },
    }),
  };
}

/**
 * `calls` echo calls (unique text and JSON-RPC id each) at `connections` connections, stopped at
 * `capSeconds` at the latest; the heap is sampled (after a full GC) every `sampleEvery` answers.
 */
export async function soakTest({ base, calls, connections, capSeconds, sampleEvery, log }) {
  const url = `${base}/t1`;
  const answers = new Uint8Array(calls + connections);
  let next = 0;
  let completed = 0;
  let mismatched = 0;
  let badStatus = 0;
  let outOfRange = 0;
  const samples = [];
  const probes = [];
  const startHeap = await heapOf(base);
  samples.push({ calls: 0, heapUsed: startHeap.heapUsed, rss: startHeap.rss });

  const instance = autocannon({
    url,
    method: 'POST',
    headers: { ...MCP_HEADERS, ...CALL.headers },
    connections,
    pipelining: 1,
    amount: calls,
    timeout: 20,
    requests: [
      {
        setupRequest(req, context) {
          const id = next;
          next += 1;
          context.id = id;
          req.body = rpc(id, 'tools/call', { name: 'echo_0', arguments: { text: `s-${id}` } }).body;
          return req;
        },
        onResponse(status, body, context) {
          completed += 1;
          const id = context.id;
          if (status !== 200) badStatus += 1;
          else {
            let message;
            try {
              message = parseRpc(body);
            } catch {
              message = undefined;
            }
            if (message?.id !== id || message?.result?.content?.[0]?.text !== `s-${id}`) mismatched += 1;
            else if (id >= answers.length) outOfRange += 1;
            else answers[id] += 1;
          }
          if (completed % sampleEvery === 0) {
            const at = completed;
            probes.push(heapOf(base).then((heap) => samples.push({ calls: at, heapUsed: heap.heapUsed, rss: heap.rss }), () => undefined));
          }
        },
      },
    ],
  });
  let capped = false;
  const cap = setTimeout(() => {
    capped = true;
    instance.stop();
  }, capSeconds * 1000);
  const startedAt = performance.now();
  const result = await instance;
  clearTimeout(cap);
  const seconds = (performance.now() - startedAt) / 1000;
  await Promise.all(probes);
  await sleep(500);
  const endHeap = await heapOf(base);
  samples.push({ calls: completed, heapUsed: endHeap.heapUsed, rss: endHeap.rss, final: true });
  samples.sort((a, b) => a.calls - b.calls || (a.final ? 1 : -1));

  let answered = 0;
  let duplicated = 0;
  for (const n of answers) {
    if (n > 0) answered += 1;
    if (n > 1) duplicated += n - 1;
  }
  const sent = next;
  const unanswered = sent - answered - mismatched - badStatus;
  // Stopping at the cap cuts at most one call per connection off mid-flight; those are not "lost".
  const cutAtCap = capped ? Math.min(connections, Math.max(0, unanswered)) : 0;
  // Two views of "flat": the idle heap after the soak against the idle heap before it, and the trend
  // (least squares) of the samples taken under load, which also hold the calls in flight.
  const first = samples[0];
  const last = samples[samples.length - 1];
  const loaded = samples.filter((sample) => sample.calls > 0 && !sample.final);
  let trendMb = 0;
  if (loaded.length >= 2) {
    const n = loaded.length;
    const mx = loaded.reduce((sum, sample) => sum + sample.calls, 0) / n;
    const my = loaded.reduce((sum, sample) => sum + sample.heapUsed, 0) / n;
    const sxy = loaded.reduce((sum, sample) => sum + (sample.calls - mx) * (sample.heapUsed - my), 0);
    const sxx = loaded.reduce((sum, sample) => sum + (sample.calls - mx) ** 2, 0);
    trendMb = ((sxy / sxx) * (loaded[n - 1].calls - loaded[0].calls)) / 1048576;
  }
  log(`  ${answered} answered of ${sent} sent in ${seconds.toFixed(1)} s${capped ? ' (time cap reached)' : ''}`);
  return {
    target: calls,
    sent,
    answered,
    lost: unanswered - cutAtCap,
    cutAtCap,
    duplicated: duplicated + outOfRange,
    mismatched,
    badStatus,
    errors: result.errors,
    timeouts: result.timeouts,
    capped,
    seconds,
    callsPerSecond: completed / seconds,
    samples,
    heapGrowthMb: (last.heapUsed - first.heapUsed) / 1048576,
    heapTrendUnderLoadMb: trendMb,
    bytesPerCall: (last.heapUsed - first.heapUsed) / Math.max(1, last.calls),
  };
}

/**
 * `count` calls to /tslow that run as tasks (2025-11-25 `task` parameter): each answers at once with a
 * task while the flow holds its call, so the heap read with all of them pending is what a pending task
 * costs (its record in memory storage, the broker's entry, the flow's held message), to set next to a
 * pending call's. Then the flow answers them all, and every task's result is read back and matched.
 */
export async function pendingTasksTest({ base, count, capSeconds, log }) {
  const deadline = Date.now() + capSeconds * 1000;
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const before = await heapOf(base);
  const taskIds = new Array(count);
  const failures = new Map();
  const fail = (reason) => failures.set(reason, (failures.get(reason) ?? 0) + 1);
  const workers = (jobs, work) => Promise.all(Array.from({ length: 32 }, async () => {
    for (;;) {
      const i = jobs.next();
      if (i.done) return;
      await work(i.value).catch((error) => fail(error.message));
    }
  }));
  const indexes = () => Array.from({ length: count }, (_, i) => i)[Symbol.iterator]();
  const started = performance.now();
  await workers(indexes(), async (i) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'hold_task', arguments: { text: `t-${i}` }, task: { ttl: 600_000 } } });
    const message = parseRpc((await post(`${base}/tslow`, body, {}, { agent, timeoutMs: Math.max(1, deadline - Date.now()) })).body);
    const taskId = message?.result?.task?.taskId;
    if (typeof taskId !== 'string') throw new Error(message?.error ? `JSON-RPC ${message.error.code}` : 'no task in the answer');
    taskIds[i] = taskId;
  });
  let held = 0;
  while (Date.now() < deadline) {
    held = await heldOf(base);
    if (held >= count) break;
    await sleep(250);
  }
  log(`  ${held} of ${count} tasks pending in the flow after ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const during = await heapOf(base);
  const { released } = resultValue(await callTool(`${base}/ctl`, 'release', {}));
  let completed = 0;
  let mismatched = 0;
  await workers(indexes(), async (i) => {
    if (!taskIds[i]) return;
    const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tasks/result', params: { taskId: taskIds[i] } });
    const message = parseRpc((await post(`${base}/tslow`, body, {}, { agent, timeoutMs: Math.max(1, deadline - Date.now()) })).body);
    if (message?.result?.content?.[0]?.text === `t-${i}`) completed += 1;
    else mismatched += 1;
  });
  agent.destroy();
  return {
    tasks: count,
    pendingAtOnce: held,
    released,
    completed,
    lost: count - completed - mismatched,
    mismatched,
    failures: Object.fromEntries(failures),
    heapBefore: before.heapUsed,
    heapPending: during.heapUsed,
    kbPerPendingTask: (during.heapUsed - before.heapUsed) / Math.max(held, 1) / 1024,
  };
}
