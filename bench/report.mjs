// Turns the measurements into the targets of issues 6, 16 and 28 and Markdown tables (ready for docs/performance.md).

const fixed = (value, digits = 0) => (value === undefined || value === null || Number.isNaN(value) ? '—' : Number(value).toFixed(digits));
const ratio = (value) => (value === undefined || Number.isNaN(value) ? '—' : `${value.toFixed(2)}×`);

export const SOAK_FLAT_MB = 4;
export const PENDING_KB_TARGET = 20;
export const HEAP_BACK_MB = 8;
// Issue 16: at most 12 KB of heap per pending call in both protocol eras. A run measures the era it
// speaks (BENCH_ERA), so each era's run evaluates this bound for itself.
export const PENDING_KB_LEAN_TARGET = 12;
// Issue 28: at most 8 KB, in both eras (each era's run evaluates it for itself), to two decimals.
export const PENDING_KB_ISSUE_28_TARGET = 8;
// Issue 16, against Baseline H (core nodes wired by hand) in the same run: calls/s ratios (≥) and the
// server CPU per call ratio (≤) of this package.
export const H_TARGETS = Object.freeze({ local1: 2.0, local1Cpu: 0.5, local500: 1.9, redis500: 1.5 });
export const LIST_TARGET = 3;
/**
 * tools/list with access per tool (issue 27): the caller who may use all 500 tools of an endpoint whose
 * tools are limited to groups, beside the same 500 tools on an endpoint without limits, in the same run.
 * Its list is its group set's view, built once per deploy: it must cost what the prebuilt list does.
 */
export const GROUPS_LIST_TARGET = 0.9;
// Edge relaying, against this package's Local 1-tool endpoint in the same run: relayed calls/s (≥), the
// p50 one call at a time adds (≤ ms), and heap per pending relayed call on the hub (≤ the Local figure).
export const RELAY_TARGETS = Object.freeze({ callsRatio: 0.5, addedP50Ms: 1, pendingKbRatio: 1 });
// Issues 26 and 28 raise the relay's bar: relayed calls/s at least 0.7× Local, at most 0.5 ms added at p50.
export const RELAY_ISSUE_28_TARGETS = Object.freeze({ callsRatio: 0.7, addedP50Ms: 0.5 });
/**
 * Relayed content, progress and questions (phase `relay`, site plant-c through the hub's /rc), printed
 * beside the relayed tools/call with no goal of their own: each against the same request answered by
 * a Local endpoint in the same rounds (reads and the prompt on /c1, of the `content` phase; without
 * it, against the relayed tools/call), and the relayed progress call against Local /p1's.
 * [id, what, Local reference id, what the reference is].
 */
const RELAY_CONTENT_ROWS = Object.freeze([
  ['relay-read', 'resources/read, fixed URI', 'read-1', 'Local resources/read, fixed URI, 1 of each'],
  ['relay-tread', 'resources/read, URI template', 'tread-1', 'Local resources/read, URI template, 1 of each'],
  ['relay-prompt', 'prompts/get', 'prompt-1', 'Local prompts/get, 1 of each'],
  ['relay-progress', 'tools/call with progress, as SSE: 1 report, then the result', 'progress-1', 'Local tools/call with progress'],
]);
// Issue 28: Local 1-tool tools/call against Baseline R (a raw node:http server answering from memory,
// the machine's floor), and every read and prompt against the tools/call rate of its own endpoint.
export const FLOOR_TARGET = 0.6;
export const CONTENT_VS_CALL_TARGET = 0.8;
// Issue 28: OAuth + Redis at 500 tools against Local at 500 tools, and one-port mode (the endpoint on
// Node-RED's own HTTP server) against the runtime's own listener, each in the same run.
export const OAUTH_VS_LOCAL_TARGET = 0.8;
export const ONE_PORT_TARGET = 0.8;
// Issue 28 ("fast on every path"): Claude Code and Codex send a progress token with every tools/call,
// so a call that carries one and reports nothing is the call real clients make; it must cost about
// what a call without one does.
export const TOKEN_VS_PLAIN_TARGET = 0.9;
const CONTENT_ROWS = Object.freeze([
  ['read', 'resources/read, fixed URI'],
  ['tread', 'resources/read, URI template'],
  ['view', 'resources/read, MCP Apps view'],
  ['prompt', 'prompts/get'],
]);
// Issue 25: reading an app view is as fast as reading any resource the flow answers.
export const VIEW_VS_READ_TARGET = 0.9;

/**
 * tools/list at 500 tools, this package's Local endpoint, calls/s at 32 connections at the previous
 * landing (stop 8, commit 4384d4d, 2026-11-29; the bench phase `list`, "32 conn. calls/s" of "this
 * package, Local"). That landing recorded only the one-at-a-time latency, so it was measured again on
 * 2026-12-02 on the project's 2-core machine: its packed palette loaded by this bench
 * (`BENCH_FIXTURE=<its .runtime-fixture/node_modules> BENCH_ONLY=local,list`) gave 974 and 943 calls/s
 * in two runs; the higher is the reference. (The landing of 2026-12-01, 1ab5ee3, gave 694 and 703: its
 * listings carry security schemes.) On another machine, measure again and pass BENCH_LIST_REFERENCE.
 */
export const LIST_500_AT_LANDING = 974;

/** The reference for the list target: BENCH_LIST_REFERENCE when set, else LIST_500_AT_LANDING. */
export function listReference(env = process.env) {
  if (env.BENCH_LIST_REFERENCE !== undefined && env.BENCH_LIST_REFERENCE !== '') {
    const value = Number(env.BENCH_LIST_REFERENCE);
    if (!Number.isFinite(value) || value <= 0) throw new Error('BENCH_LIST_REFERENCE must be a positive number (calls/s)');
    return { callsPerSecond: value, source: 'BENCH_LIST_REFERENCE' };
  }
  return LIST_500_AT_LANDING === undefined ? undefined : { callsPerSecond: LIST_500_AT_LANDING, source: 'report.mjs LIST_500_AT_LANDING' };
}

const revisionOf = (era) => (era === 'modern' ? '2026-07-28' : '2025-11-25');

export function baselineA(results) {
  return results.calls.find((row) => row.id === 'A')?.callsPerSecond;
}

/**
 * The ratio in each interleaved round, as "min–max×" (how much the machine's load moved it), and
 * the same comparison by server CPU time per call, which background load disturbs far less.
 */
function roundSpread(row, reference) {
  if (!row || !reference) return '';
  const parts = [];
  if (row.rounds?.length > 1 && reference.rounds?.length === row.rounds.length) {
    const ratios = row.rounds.map((value, i) => value / reference.rounds[i]);
    parts.push(`rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×`);
  }
  if (row.serverCpuUsPerCall && reference.serverCpuUsPerCall) parts.push(`by server CPU per call ${(reference.serverCpuUsPerCall / row.serverCpuUsPerCall).toFixed(2)}×`);
  return parts.join('; ');
}

/** Whether the pending-call figure a pending task is compared with was measured. */
const p0 = (results) => results.pending?.kbPerPendingCall > 0;

/** A sealed requestState must cost well under a millisecond to make and to check: a tenth of one. */
const STATE_US_TARGET = 100;

export function evaluateTargets(results) {
  const row = (id) => results.calls.find((entry) => entry.id === id);
  const a = baselineA(results);
  const b = row('B')?.callsPerSecond;
  const spread = (id, reference) => roundSpread(row(id), row(reference));
  const targets = [];
  const add = (name, value, goal, pass, detail = '', digits = undefined) => targets.push({ name, value, goal, pass, detail, ...(digits !== undefined && { digits }) });
  const local1 = row('local-1')?.callsPerSecond;
  const local500 = row('local-500')?.callsPerSecond;
  const redis500 = row('oauth-redis-500')?.callsPerSecond;
  if (a && local1) add('Local, 1 tool vs Baseline A', local1 / a, '≥ 1.0×', local1 / a >= 1.0, spread('local-1', 'A'));
  if (a && redis500) add('OAuth + Redis, 500 tools vs Baseline A', redis500 / a, '≥ 0.8×', redis500 / a >= 0.8, spread('oauth-redis-500', 'A'));
  if (b && redis500) add('OAuth + Redis, 500 tools vs Baseline B', redis500 / b, '≥ 3×', redis500 / b >= 3, spread('oauth-redis-500', 'B'));
  // Issue #29: Sentinel and Cluster storage cost no more than a tenth of one Redis's throughput.
  for (const [id, what] of [['oauth-sentinel-500', 'Redis Sentinel'], ['oauth-cluster-500', 'Redis Cluster']]) {
    const value = row(id)?.callsPerSecond;
    if (redis500 && value) add(`OAuth + ${what}, 500 tools vs OAuth + one Redis`, value / redis500, '≥ 0.9×', value / redis500 >= 0.9, spread(id, 'oauth-redis-500'));
  }
  if (local500 && redis500) {
    add('OAuth + Redis, 500 tools vs Local, 500 tools', redis500 / local500, `≥ ${OAUTH_VS_LOCAL_TARGET.toFixed(1)}×`, redis500 / local500 >= OAUTH_VS_LOCAL_TARGET, spread('oauth-redis-500', 'local-500'));
  }
  const mem500 = row('oauth-mem-500')?.callsPerSecond;
  // No goal of its own: beside the Redis figure, it shows what storage adds.
  if (local500 && mem500) add('OAuth + Memory, 500 tools vs Local, 500 tools', ratio(mem500 / local500), '—', null, spread('oauth-mem-500', 'local-500'));
  const onePort = row('oneport-1')?.callsPerSecond;
  if (local1 && onePort) {
    add("One port (Node-RED's own HTTP server), 1 tool vs the runtime's own listener", onePort / local1, `≥ ${ONE_PORT_TARGET.toFixed(1)}×`, onePort / local1 >= ONE_PORT_TARGET,
      // Issue 28 accepts a miss here when the README says why and what it costs; it does (Express, about 0.4×).
      `${spread('oneport-1', 'local-1')}; the README and docs/one-port.md say why and what it costs`);
  }
  if (local1 && local500) add('Local, 500 tools vs 1 tool (this package)', local500 / local1, '≥ 0.9×', local500 / local1 >= 0.9, spread('local-500', 'local-1'));
  const token1 = row('token-1')?.callsPerSecond;
  if (local1 && token1) {
    add('Local, 1 tool, tools/call with a progress token (as Claude Code and Codex send it) vs without', token1 / local1, `≥ ${TOKEN_VS_PLAIN_TARGET.toFixed(1)}×`, token1 / local1 >= TOKEN_VS_PLAIN_TARGET, spread('token-1', 'local-1'));
  }
  const r = row('R')?.callsPerSecond;
  if (r && local1) {
    add(`Local, 1 tool, ${revisionOf(results.meta.era)} tools/call vs Baseline R (raw node:http, the floor)`, local1 / r, `≥ ${FLOOR_TARGET.toFixed(1)}×`, local1 / r >= FLOOR_TARGET, spread('local-1', 'R'));
  }
  for (const count of [1, 500]) {
    const call = row(`ccall-${count}`)?.callsPerSecond;
    for (const [id, what] of CONTENT_ROWS) {
      const value = row(`${id}-${count}`)?.callsPerSecond;
      if (call && value) {
        add(`Local, ${what}, ${count} of each, vs tools/call of the same endpoint`, value / call, `≥ ${CONTENT_VS_CALL_TARGET.toFixed(1)}×`, value / call >= CONTENT_VS_CALL_TARGET, spread(`${id}-${count}`, `ccall-${count}`));
      }
    }
  }
  for (const count of [1, 500]) {
    const read = row(`read-${count}`)?.callsPerSecond;
    const view = row(`view-${count}`)?.callsPerSecond;
    if (read && view) {
      add(`Local, MCP Apps view read vs fixed-URI resources/read, ${count} of each`, view / read, `≥ ${VIEW_VS_READ_TARGET.toFixed(1)}×`, view / read >= VIEW_VS_READ_TARGET, spread(`view-${count}`, `read-${count}`));
    }
  }
  for (const [id, what] of [['read', 'resources/read, 500 resources vs 1'], ['tread', 'resources/read of a URI template, 500 templates vs 1'], ['prompt', 'prompts/get, 500 prompts vs 1']]) {
    const one = row(`${id}-1`)?.callsPerSecond;
    const many = row(`${id}-500`)?.callsPerSecond;
    if (one && many) add(`Local, ${what} (this package)`, many / one, '≥ 0.9×', many / one >= 0.9, spread(`${id}-500`, `${id}-1`));
  }
  const h = row('H')?.callsPerSecond;
  const hCpu = row('H')?.serverCpuUsPerCall;
  const local1Cpu = row('local-1')?.serverCpuUsPerCall;
  if (h && local1) add('Local, 1 tool vs Baseline H', local1 / h, `≥ ${H_TARGETS.local1.toFixed(1)}×`, local1 / h >= H_TARGETS.local1, spread('local-1', 'H'));
  if (hCpu && local1Cpu) {
    add('Local, 1 tool: server CPU per call vs Baseline H', local1Cpu / hCpu, `≤ ${H_TARGETS.local1Cpu.toFixed(1)}×`, local1Cpu / hCpu <= H_TARGETS.local1Cpu, `${fixed(local1Cpu)} vs ${fixed(hCpu)} µs`);
  }
  if (h && local500) add('Local, 500 tools vs Baseline H', local500 / h, `≥ ${H_TARGETS.local500.toFixed(1)}×`, local500 / h >= H_TARGETS.local500, spread('local-500', 'H'));
  if (h && redis500) add('OAuth + Redis, 500 tools vs Baseline H', redis500 / h, `≥ ${H_TARGETS.redis500.toFixed(1)}×`, redis500 / h >= H_TARGETS.redis500, spread('oauth-redis-500', 'H'));
  const list = results.lists.find((entry) => entry.id === 'local-500')?.loaded?.callsPerSecond;
  if (list) {
    const reference = results.meta.listReference;
    const name = 'tools/list, Local 500 tools, 32 connections, vs the previous landing';
    if (reference) add(name, list / reference.callsPerSecond, `≥ ${LIST_TARGET}×`, list / reference.callsPerSecond >= LIST_TARGET, `${fixed(list)} vs ${fixed(reference.callsPerSecond)} calls/s (${reference.source})`);
    else add(name, `${fixed(list)} calls/s`, `≥ ${LIST_TARGET}×`, null, 'no reference recorded: set BENCH_LIST_REFERENCE or LIST_500_AT_LANDING');
  }
  const listOf = (id) => results.lists.find((entry) => entry.id === id)?.loaded?.callsPerSecond;
  const unrestricted = listOf('oauth-redis-500');
  const everyGroup = listOf('oauth-groups-dave');
  if (unrestricted && everyGroup) {
    const others = ['alice', 'carol'].map((name) => `${name} ${fixed(listOf(`oauth-groups-${name}`))}`).join(', ');
    add('tools/list, 500 tools limited to three group sets, a caller seeing all 500, vs OAuth + Redis 500 tools', everyGroup / unrestricted, `≥ ${GROUPS_LIST_TARGET}×`, everyGroup / unrestricted >= GROUPS_LIST_TARGET,
      `${fixed(everyGroup)} vs ${fixed(unrestricted)} lists/s; callers of the other sets (shorter lists): ${others}`);
  }
  const tasks = results.pendingTasks;
  if (tasks && p0(results)) {
    const complete = tasks.completed === tasks.tasks && tasks.lost === 0 && tasks.mismatched === 0 && tasks.pendingAtOnce === tasks.tasks;
    add(`${tasks.tasks} tasks pending at once: all completed with their own result`, `${tasks.completed}/${tasks.tasks}`, 'all', complete, `pending at once ${tasks.pendingAtOnce}, lost ${tasks.lost}, mismatched ${tasks.mismatched}`);
    const ratio = tasks.kbPerPendingTask / results.pending.kbPerPendingCall;
    add('Heap per pending task vs per pending call', ratio, '≤ 1.0×', ratio <= 1, `${fixed(tasks.kbPerPendingTask, 1)} vs ${fixed(results.pending.kbPerPendingCall, 1)} KB`);
  }
  const state = results.requestState;
  if (state) {
    // "Well under a millisecond" per round and direction, as the issue for flows that ask puts it.
    add('Sealing a requestState, µs (one round of a flow that asks)', state.sealUs, `≤ ${STATE_US_TARGET} µs`, state.sealUs <= STATE_US_TARGET, `${state.bytes} bytes sealed`);
    add('Opening and checking a requestState, µs', state.openUs, `≤ ${STATE_US_TARGET} µs`, state.openUs <= STATE_US_TARGET);
  }
  const p = results.pending;
  if (p) {
    const complete = p.answered === p.calls && p.lost === 0 && p.duplicated === 0 && p.mismatched === 0 && p.pendingAtOnce === p.calls;
    add(`${p.calls} calls pending at once: all answered, none lost or duplicated`, `${p.answered}/${p.calls}`, 'all', complete,
      `pending at once ${p.pendingAtOnce}, lost ${p.lost}, duplicated ${p.duplicated}, mismatched ${p.mismatched}`);
    add('Heap per pending call', p.kbPerPendingCall, `≤ ${PENDING_KB_TARGET} KB`, p.kbPerPendingCall <= PENDING_KB_TARGET);
    add(`Heap per pending call, ${revisionOf(results.meta.era)} calls (bound for both eras)`, p.kbPerPendingCall, `≤ ${PENDING_KB_LEAN_TARGET} KB`, p.kbPerPendingCall <= PENDING_KB_LEAN_TARGET);
    add(`Heap per pending call, ${revisionOf(results.meta.era)} calls (issue 28)`, p.kbPerPendingCall, `≤ ${PENDING_KB_ISSUE_28_TARGET} KB`, p.kbPerPendingCall <= PENDING_KB_ISSUE_28_TARGET, `${fixed(p.kbPerPendingCall, 2)} KB`);
    add('Heap after the pending calls, vs before', p.heapAfterDeltaMb, `≤ ${HEAP_BACK_MB} MB above`, p.heapAfterDeltaMb <= HEAP_BACK_MB);
  }
  const relayed = row('relay-1');
  if (relayed && local1) {
    const [hub, edge, redis] = relayed.serverCpuUsPerCallByProcess ?? [];
    const cpu = relayed.serverCpuUsPerCall && row('local-1')?.serverCpuUsPerCall ? `; CPU per call ${fixed(relayed.serverCpuUsPerCall)} µs (hub ${fixed(hub)} + edge ${fixed(edge)} + Redis ${fixed(redis)}) vs ${fixed(row('local-1').serverCpuUsPerCall)} µs Local` : '';
    add('Relayed tools/call (hub → Redis → edge, 1 edge tool) vs Local 1 tool', relayed.callsPerSecond / local1, `≥ ${RELAY_TARGETS.callsRatio.toFixed(1)}×`, relayed.callsPerSecond / local1 >= RELAY_TARGETS.callsRatio, `${spread('relay-1', 'local-1')}${cpu}`);
    add('Relayed tools/call vs Local 1 tool (issues 26 and 28)', relayed.callsPerSecond / local1, `≥ ${RELAY_ISSUE_28_TARGETS.callsRatio.toFixed(1)}×`, relayed.callsPerSecond / local1 >= RELAY_ISSUE_28_TARGETS.callsRatio, spread('relay-1', 'local-1'));
  }
  for (const [id, what, localId, localWhat] of RELAY_CONTENT_ROWS) {
    const relayedRow = row(id);
    const reference = row(localId) ? [localId, localWhat] : row('relay-1') ? ['relay-1', 'relayed tools/call'] : undefined;
    if (!relayedRow || !reference) continue;
    const [referenceId, referenceWhat] = reference;
    const referenceRow = row(referenceId);
    const parts = [spread(id, referenceId), `p50 ${fixed(relayedRow.p50)} vs ${fixed(referenceRow.p50)} ms`];
    if (relayedRow.serverCpuUsPerCall && referenceRow.serverCpuUsPerCall) {
      const [hub, edge, redis] = relayedRow.serverCpuUsPerCallByProcess ?? [];
      parts.push(`CPU per call ${fixed(relayedRow.serverCpuUsPerCall)} µs (hub ${fixed(hub)} + edge ${fixed(edge)} + Redis ${fixed(redis)}) vs ${fixed(referenceRow.serverCpuUsPerCall)} µs`);
    }
    // Beside the Local reference: the same request against the relayed tools/call, and for progress
    // what it costs Local against a call without it.
    if (referenceId !== 'relay-1' && row('relay-1')) parts.push(`vs relayed tools/call ${ratio(relayedRow.callsPerSecond / row('relay-1').callsPerSecond)}`);
    if (id === 'relay-progress' && referenceRow && local1) parts.push(`Local with progress vs without ${ratio(referenceRow.callsPerSecond / local1)}`);
    add(`Relayed ${what} (hub → Redis → edge) vs ${referenceWhat}`, ratio(relayedRow.callsPerSecond / referenceRow.callsPerSecond), '—', null, parts.filter(Boolean).join('; '));
  }
  const latency = results.relay?.latency;
  if (latency) {
    const perRound = latency.roundsAddedP50Ms.length > 1 ? `; rounds ${fixed(Math.min(...latency.roundsAddedP50Ms), 2)}–${fixed(Math.max(...latency.roundsAddedP50Ms), 2)} ms` : '';
    add('Relay: p50 added to one call at a time (relayed − Local), ms', latency.addedP50Ms, `≤ ${RELAY_TARGETS.addedP50Ms} ms`, latency.addedP50Ms <= RELAY_TARGETS.addedP50Ms,
      `p50 ${fixed(latency.relayed.p50, 2)} vs ${fixed(latency.local.p50, 2)} ms${perRound}`, 2);
    add('Relay: p50 added to one call at a time, ms (issues 26 and 28)', latency.addedP50Ms, `≤ ${RELAY_ISSUE_28_TARGETS.addedP50Ms} ms`, latency.addedP50Ms <= RELAY_ISSUE_28_TARGETS.addedP50Ms, undefined, 2);
  }
  const asking = results.relay?.asking;
  if (asking) {
    const perRound = asking.roundsAddedP50Ms.length > 1 ? `; rounds ${fixed(Math.min(...asking.roundsAddedP50Ms), 2)}–${fixed(Math.max(...asking.roundsAddedP50Ms), 2)} ms` : '';
    add('Relay: p50 added to a call that asks once (input_required, then the retry with the answer), one exchange at a time, ms', asking.addedP50Ms, '—', null,
      `p50 ${fixed(asking.relayed.p50, 2)} vs ${fixed(asking.local.p50, 2)} ms per exchange${perRound}; wrong answers ${asking.errors.relayed} relayed, ${asking.errors.local} Local`, 2);
  }
  const rp = results.relay?.pending;
  if (rp) {
    const complete = rp.answered === rp.calls && rp.lost === 0 && rp.duplicated === 0 && rp.mismatched === 0 && rp.pendingAtOnce === rp.calls;
    add(`${rp.calls} relayed calls pending at once: all answered, none lost or duplicated`, `${rp.answered}/${rp.calls}`, 'all', complete,
      `pending at once ${rp.pendingAtOnce}, lost ${rp.lost}, duplicated ${rp.duplicated}, mismatched ${rp.mismatched}`);
    const name = 'Heap per pending relayed call on the hub vs per pending Local call';
    if (p) {
      const ratioKb = rp.kbPerPendingCall / p.kbPerPendingCall;
      add(name, ratioKb, `≤ ${RELAY_TARGETS.pendingKbRatio.toFixed(1)}×`, ratioKb <= RELAY_TARGETS.pendingKbRatio, `${fixed(rp.kbPerPendingCall, 1)} vs ${fixed(p.kbPerPendingCall, 1)} KB; the edge holds ${fixed(rp.control?.kbPerPendingCall, 1)} KB per call`);
    } else add(name, rp.kbPerPendingCall, '≤ the Local figure', null, 'no Local pending figure in this run');
  }
  const s = results.soak;
  if (s) {
    const clean = s.lost === 0 && s.duplicated === 0 && s.mismatched === 0 && s.badStatus === 0 && !s.capped;
    add(`${s.target}-call soak: zero lost, duplicated, mismatched`, `${s.answered}/${s.target}`, 'all', clean,
      `lost ${s.lost}, duplicated ${s.duplicated}, mismatched ${s.mismatched}, non-200 ${s.badStatus}${s.capped ? ', time cap reached' : ''}`);
    add('Soak heap growth, idle after vs idle before (after GC)', s.heapGrowthMb, `≤ ${SOAK_FLAT_MB} MB`, s.heapGrowthMb <= SOAK_FLAT_MB, `${fixed(s.bytesPerCall, 1)} B/call`);
    add('Soak heap trend under load (least squares over the 10k samples)', s.heapTrendUnderLoadMb, `≤ ${SOAK_FLAT_MB} MB`, s.heapTrendUnderLoadMb <= SOAK_FLAT_MB);
  }
  return targets;
}

export function renderMarkdown(results) {
  const a = baselineA(results);
  const b = results.calls.find((row) => row.id === 'B')?.callsPerSecond;
  const lines = [];
  const m = results.meta;
  lines.push(`Measured ${m.date} on ${m.cpu} (${m.cores} cores), Node ${m.node}, Node-RED ${m.nodeRed}, MCP SDK ${m.sdk}, autocannon ${m.autocannon}.`);
  lines.push(
    `tools/call (protocol ${m.era === 'modern' ? '2026-07-28' : '2025-11-25'}): ${m.connections} connections, ${m.warmupSeconds} s warm-up, then ${m.durationSeconds} s per scenario in ${m.rounds} interleaved round(s). ` +
      `Load average (1 min) ${m.loadBefore[0].toFixed(2)} at start, ${m.loadAfter ? m.loadAfter[0].toFixed(2) : '—'} at end.`,
  );
  lines.push('');
  const aCpu = results.calls.find((row) => row.id === 'A')?.serverCpuUsPerCall;
  const hRow = results.calls.find((row) => row.id === 'H');
  const rRow = results.calls.find((row) => row.id === 'R');
  lines.push('| scenario | tools (resources, prompts) | calls/s | p50 ms | p99 ms | × R | × A | × B | × H | server CPU µs/call | × A by CPU | CPU ÷ H | faults |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of results.calls) {
    const faults = row.errors + row.timeouts + row.non2xx + row.mismatches;
    lines.push(
      `| ${row.label} | ${row.tools} | ${fixed(row.callsPerSecond)} | ${fixed(row.p50)} | ${fixed(row.p99)} | ${rRow ? ratio(row.callsPerSecond / rRow.callsPerSecond) : '—'} | ${a ? ratio(row.callsPerSecond / a) : '—'} | ${b ? ratio(row.callsPerSecond / b) : '—'} | ${hRow ? ratio(row.callsPerSecond / hRow.callsPerSecond) : '—'} | ${fixed(row.serverCpuUsPerCall)} | ${aCpu && row.serverCpuUsPerCall ? ratio(aCpu / row.serverCpuUsPerCall) : '—'} | ${hRow?.serverCpuUsPerCall && row.serverCpuUsPerCall ? ratio(row.serverCpuUsPerCall / hRow.serverCpuUsPerCall) : '—'} | ${faults} |`,
    );
  }
  lines.push('');
  lines.push('Server CPU: user + system time of the server process (Baselines, Node-RED; for OAuth + Redis also redis-server; for relayed calls the hub and edge Node-RED and redis-server together) per answered call; × A by CPU = Baseline A\'s CPU per call divided by the row\'s; CPU ÷ H = the row\'s CPU per call divided by Baseline H\'s (lower is leaner).');
  if (rRow) lines.push('Baseline R: a raw node:http server answering the same tools/call from memory, in its own process (the floor: no SDK, no Node-RED, no checks).');
  if (hRow) lines.push('Baseline H: core Node-RED nodes wired by hand (http in → function → http response) answering JSON-RPC for one echo tool, in its own Node-RED process of the same version.');
  if (results.lists.length > 0) {
    lines.push('');
    lines.push('| tools/list, 500 tools | one at a time p50 ms | p99 ms | 32 conn. calls/s | p50 ms | p99 ms |');
    lines.push('|---|---:|---:|---:|---:|---:|');
    for (const row of results.lists) {
      lines.push(`| ${row.label} | ${fixed(row.sequential.p50, 2)} | ${fixed(row.sequential.p99, 2)} | ${fixed(row.loaded.callsPerSecond)} | ${fixed(row.loaded.p50)} | ${fixed(row.loaded.p99)} |`);
    }
  }
  const p = results.pending;
  if (p) {
    lines.push('');
    lines.push(
      `Pending: ${p.pendingAtOnce} of ${p.calls} calls pending at once (issued in ${fixed(p.issueSeconds, 1)} s), ${p.answered} answered ${fixed(p.answerSeconds, 1)} s after release; lost ${p.lost}, duplicated ${p.duplicated}, mismatched ${p.mismatched}. ` +
        `Heap ${fixed(p.heapBefore / 1048576, 1)} MB → ${fixed(p.heapPending / 1048576, 1)} MB pending (${fixed(p.kbPerPendingCall, 1)} KB per call) → ${fixed(p.heapAfter / 1048576, 1)} MB after; RSS ${fixed(p.rssBefore / 1048576)} → ${fixed(p.rssPending / 1048576)} → ${fixed(p.rssAfter / 1048576)} MB.`,
    );
    const r = results.pendingBaseline;
    if (r) {
      lines.push(
        `Reference, the bare SDK (Baseline A with a tool that waits) under the same ${r.calls} pending calls: ${fixed(r.kbPerPendingCall, 1)} KB heap per call, ` +
          `${r.answered} answered, lost ${r.lost}, duplicated ${r.duplicated}.`,
      );
    }
  }
  const relay = results.relay;
  if (relay) {
    const l = relay.latency;
    lines.push('');
    lines.push(
      `Relayed (hub → Redis → edge), one call at a time on one connection, alternating with Local 1 tool in each round: p50 ${fixed(l.relayed.p50, 2)} ms (p99 ${fixed(l.relayed.p99, 2)}) vs ${fixed(l.local.p50, 2)} ms (p99 ${fixed(l.local.p99, 2)}), ` +
        `${fixed(l.addedP50Ms, 2)} ms added at p50 (${l.relayed.count} calls each).`,
    );
    const q = relay.asking;
    if (q) {
      lines.push(
        `Relayed call that asks once (2026-07-28: input_required, then the retry with the answer; two requests), one exchange at a time, alternating with Local: p50 ${fixed(q.relayed.p50, 2)} ms (p99 ${fixed(q.relayed.p99, 2)}) vs ${fixed(q.local.p50, 2)} ms (p99 ${fixed(q.local.p99, 2)}), ` +
          `${fixed(q.addedP50Ms, 2)} ms added at p50 (${q.relayed.count} and ${q.local.count} exchanges; wrong answers ${q.errors.relayed} relayed, ${q.errors.local} Local).`,
      );
    }
    const rp = relay.pending;
    if (rp) {
      lines.push(
        `Relayed pending: ${rp.pendingAtOnce} of ${rp.calls} calls pending at once, held by the edge's flow (issued in ${fixed(rp.issueSeconds, 1)} s), ${rp.answered} answered ${fixed(rp.answerSeconds, 1)} s after release; lost ${rp.lost}, duplicated ${rp.duplicated}, mismatched ${rp.mismatched}. ` +
          `Hub heap ${fixed(rp.heapBefore / 1048576, 1)} MB → ${fixed(rp.heapPending / 1048576, 1)} MB pending (${fixed(rp.kbPerPendingCall, 1)} KB per call) → ${fixed(rp.heapAfter / 1048576, 1)} MB after; ` +
          `edge heap ${fixed(rp.control?.heapBefore / 1048576, 1)} MB → ${fixed(rp.control?.heapPending / 1048576, 1)} MB pending (${fixed(rp.control?.kbPerPendingCall, 1)} KB per call).`,
      );
    }
  }
  const s = results.soak;
  if (s) {
    lines.push('');
    lines.push(
      `Soak: ${s.answered} of ${s.target} calls answered in ${fixed(s.seconds, 1)} s (${fixed(s.callsPerSecond)} calls/s); lost ${s.lost}, duplicated ${s.duplicated}, mismatched ${s.mismatched}, non-200 ${s.badStatus}. ` +
        `Heap after GC (MB): ${s.samples.map((sample) => fixed(sample.heapUsed / 1048576, 1)).join(', ')} (before, every 10k calls under load, after).`,
    );
  }
  lines.push('');
  lines.push('| target | measured | goal | |');
  lines.push('|---|---:|---|---|');
  for (const target of results.targets) {
    const value = typeof target.value === 'number' ? (target.goal.includes('×') ? ratio(target.value) : fixed(target.value, target.digits ?? 1)) : target.value;
    const verdict = target.pass === null || target.pass === undefined ? 'not evaluated' : target.pass ? 'pass' : '**miss**';
    lines.push(`| ${target.name} | ${value} | ${target.goal} | ${verdict}${target.detail ? ` (${target.detail})` : ''} |`);
  }
  return lines.join('\n');
}
