// Turns the measurements into the targets of issue 6 and Markdown tables (ready for the README).

const fixed = (value, digits = 0) => (value === undefined || value === null || Number.isNaN(value) ? '—' : Number(value).toFixed(digits));
const ratio = (value) => (value === undefined || Number.isNaN(value) ? '—' : `${value.toFixed(2)}×`);

export const SOAK_FLAT_MB = 4;
export const PENDING_KB_TARGET = 20;
export const HEAP_BACK_MB = 8;

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

export function evaluateTargets(results) {
  const row = (id) => results.calls.find((entry) => entry.id === id);
  const a = baselineA(results);
  const b = row('B')?.callsPerSecond;
  const spread = (id, reference) => roundSpread(row(id), row(reference));
  const targets = [];
  const add = (name, value, goal, pass, detail = '') => targets.push({ name, value, goal, pass, detail });
  const local1 = row('local-1')?.callsPerSecond;
  const local500 = row('local-500')?.callsPerSecond;
  const redis500 = row('oauth-redis-500')?.callsPerSecond;
  if (a && local1) add('Local, 1 tool vs Baseline A', local1 / a, '≥ 1.0×', local1 / a >= 1.0, spread('local-1', 'A'));
  if (a && redis500) add('OAuth + Redis, 500 tools vs Baseline A', redis500 / a, '≥ 0.8×', redis500 / a >= 0.8, spread('oauth-redis-500', 'A'));
  if (b && redis500) add('OAuth + Redis, 500 tools vs Baseline B', redis500 / b, '≥ 3×', redis500 / b >= 3, spread('oauth-redis-500', 'B'));
  if (local1 && local500) add('Local, 500 tools vs 1 tool (this package)', local500 / local1, '≥ 0.9×', local500 / local1 >= 0.9, spread('local-500', 'local-1'));
  const p = results.pending;
  if (p) {
    const complete = p.answered === p.calls && p.lost === 0 && p.duplicated === 0 && p.mismatched === 0 && p.pendingAtOnce === p.calls;
    add(`${p.calls} calls pending at once: all answered, none lost or duplicated`, `${p.answered}/${p.calls}`, 'all', complete,
      `pending at once ${p.pendingAtOnce}, lost ${p.lost}, duplicated ${p.duplicated}, mismatched ${p.mismatched}`);
    add('Heap per pending call', p.kbPerPendingCall, `≤ ${PENDING_KB_TARGET} KB`, p.kbPerPendingCall <= PENDING_KB_TARGET);
    add('Heap after the pending calls, vs before', p.heapAfterDeltaMb, `≤ ${HEAP_BACK_MB} MB above`, p.heapAfterDeltaMb <= HEAP_BACK_MB);
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
  lines.push('| scenario | tools | calls/s | p50 ms | p99 ms | × A | × B | server CPU µs/call | × A by CPU | faults |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of results.calls) {
    const faults = row.errors + row.timeouts + row.non2xx + row.mismatches;
    lines.push(
      `| ${row.label} | ${row.tools} | ${fixed(row.callsPerSecond)} | ${fixed(row.p50)} | ${fixed(row.p99)} | ${a ? ratio(row.callsPerSecond / a) : '—'} | ${b ? ratio(row.callsPerSecond / b) : '—'} | ${fixed(row.serverCpuUsPerCall)} | ${aCpu && row.serverCpuUsPerCall ? ratio(aCpu / row.serverCpuUsPerCall) : '—'} | ${faults} |`,
    );
  }
  lines.push('');
  lines.push('Server CPU: user + system time of the server process (Baselines, Node-RED; for OAuth + Redis also redis-server) per answered call; × A by CPU = Baseline A\'s CPU per call divided by the row\'s.');
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
    const value = typeof target.value === 'number' ? (target.goal.includes('×') ? ratio(target.value) : fixed(target.value, 1)) : target.value;
    lines.push(`| ${target.name} | ${value} | ${target.goal} | ${target.pass ? 'pass' : '**miss**'}${target.detail ? ` (${target.detail})` : ''} |`);
  }
  return lines.join('\n');
}
