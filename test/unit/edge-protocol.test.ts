import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ANNOUNCEMENT_BYTES, MAX_ANSWER_BYTES, MAX_EDGE_TOOLS, MAX_NOTE_BYTES, parseEdgeBound, parseHubBound, SITE_PATTERN, siteChannel } from '../../lib/edge/edge-protocol.js';
import { DEFAULTS } from '../../lib/core/defaults.js';
import { renderStoreKey } from '../../lib/storage/store-arguments.js';

const tool = (name: string) => ({ listing: { name, inputSchema: { type: 'object' } }, timeoutMs: 30_000, maxDurationMs: 60_000 });
const announcement = (fields: Record<string, unknown> = {}) => JSON.stringify({ t: 'announce', site: 'plant-a', instance: 'i1', tools: [tool('x')], ...fields });
const problemOf = (parsed: ReturnType<typeof parseHubBound>) => (parsed.ok ? 'accepted' : parsed.problem);

describe('edge channels and site names', () => {
  it('puts every channel of a site under <prefix>:edge:<site>:, the pattern one ACL rule allows', () => {
    assert.equal(renderStoreKey('mcp', siteChannel('plant-a', 'announce')), 'mcp:edge:plant-a:announce');
    assert.equal(renderStoreKey('mcp', siteChannel('plant-a', 'calls')), 'mcp:edge:plant-a:calls');
    assert.equal(renderStoreKey('mcp', siteChannel('plant-a', 'answers')), 'mcp:edge:plant-a:answers');
  });

  it('takes lower-case names of letters, digits and dashes up to 32 characters', () => {
    for (const good of ['plant-a', '0', 'a', 'x'.repeat(32), '7-eleven']) assert.ok(SITE_PATTERN.test(good), good);
    // A ':' or '*' would reach into another site's channels; a '.' would blur the tool names.
    for (const bad of ['', 'Plant-a', '-a', 'x'.repeat(33), 'a.b', 'a:b', 'a*', 'a b', 'plant_a']) assert.equal(SITE_PATTERN.test(bad), false, bad);
  });
});

describe('messages an edge sends a hub', () => {
  it('accepts an announcement and takes the site from the channel', () => {
    const parsed = parseHubBound(announcement(), 'plant-a', 'announce');
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value, { t: 'announce', site: 'plant-a', instance: 'i1', tools: [tool('x')] });
  });

  it('refuses an announcement naming another site than its channel', () => {
    assert.equal(problemOf(parseHubBound(announcement({ site: 'plant-b' }), 'plant-a', 'announce')), 'it names site "plant-b" on the channel of site plant-a');
    assert.match(problemOf(parseHubBound(announcement({ site: undefined }), 'plant-a', 'announce')), /names site "undefined"/);
    // A farewell is held to the same rule: plant-b cannot say goodbye for plant-a.
    assert.match(problemOf(parseHubBound(JSON.stringify({ t: 'bye', site: 'plant-b', instance: 'i1' }), 'plant-a', 'announce')), /names site "plant-b"/);
  });

  it('refuses malformed announcements, each with its reason', () => {
    const cases: Array<[string, RegExp]> = [
      ['{"t":"announce", not json', /not a JSON object/],
      ['[1,2]', /not a JSON object/],
      ['"text"', /not a JSON object/],
      [announcement({ instance: '' }), /no instance/],
      [announcement({ instance: 5 }), /no instance/],
      [announcement({ t: 'hello' }), /unknown message type "hello"/],
      [announcement({ tools: {} }), /tools must be an array of at most 200/],
      [announcement({ tools: Array.from({ length: MAX_EDGE_TOOLS + 1 }, (_, index) => tool(`t${index}`)) }), /at most 200/],
      [announcement({ tools: [{ listing: { inputSchema: {} }, timeoutMs: 1, maxDurationMs: 1 }] }), /tools\[0\] has no listing with a name/],
      [announcement({ tools: [tool('x'), 'x'] }), /tools\[1\] has no listing/],
      [announcement({ tools: [{ ...tool('x'), timeoutMs: 0 }] }), /tools\[0\] needs timeoutMs and maxDurationMs/],
      [announcement({ tools: [{ ...tool('x'), timeoutMs: '30000' }] }), /needs timeoutMs/],
      [announcement({ tools: [{ ...tool('x'), maxDurationMs: -1 }] }), /needs timeoutMs/],
      [announcement({ tools: [{ listing: { name: 'x' }, timeoutMs: 1 }] }), /needs timeoutMs/],
    ];
    for (const [text, problem] of cases) assert.match(problemOf(parseHubBound(text, 'plant-a', 'announce')), problem, text.slice(0, 80));
  });

  it('takes as many tools as allowed, and a farewell', () => {
    assert.ok(parseHubBound(announcement({ tools: Array.from({ length: MAX_EDGE_TOOLS }, (_, index) => tool(`t${index}`)) }), 'plant-a', 'announce').ok);
    assert.deepEqual(parseHubBound(JSON.stringify({ t: 'bye', site: 'plant-a', instance: 'i1' }), 'plant-a', 'announce'), { ok: true, value: { t: 'bye', site: 'plant-a', instance: 'i1' } });
  });

  it('refuses an announcement over 512 KiB before parsing it', () => {
    const padded = (size: number) => {
      const base = announcement({ pad: '' });
      return announcement({ pad: 'p'.repeat(size - base.length) });
    };
    assert.equal(padded(MAX_ANNOUNCEMENT_BYTES).length, MAX_ANNOUNCEMENT_BYTES);
    assert.ok(parseHubBound(padded(MAX_ANNOUNCEMENT_BYTES), 'plant-a', 'announce').ok);
    assert.equal(problemOf(parseHubBound(padded(MAX_ANNOUNCEMENT_BYTES + 1), 'plant-a', 'announce')), `message of ${MAX_ANNOUNCEMENT_BYTES + 1} bytes is over the ${MAX_ANNOUNCEMENT_BYTES} bytes an edge may send`);
  });

  it('accepts an answer that names its call, up to the size limit,, and nothing else on the answers channel', () => {
    assert.deepEqual(parseHubBound(JSON.stringify({ t: 'answer', id: 'abc', result: { content: [] } }), 'plant-a', 'answers'), { ok: true, value: { t: 'answer', id: 'abc', result: { content: [] } } });
    assert.match(problemOf(parseHubBound(JSON.stringify({ t: 'answer', result: 1 }), 'plant-a', 'answers')), /needs t "answer" and an id/);
    assert.match(problemOf(parseHubBound(JSON.stringify({ t: 'answer', id: 7 }), 'plant-a', 'answers')), /needs t "answer" and an id/);
    // An announcement is not an answer, whatever channel it comes on.
    assert.match(problemOf(parseHubBound(announcement(), 'plant-a', 'answers')), /needs t "answer"/);
    const big = (size: number) => {
      const base = JSON.stringify({ t: 'answer', id: 'abc', result: '' });
      return JSON.stringify({ t: 'answer', id: 'abc', result: 'r'.repeat(size - base.length) });
    };
    assert.ok(parseHubBound(big(MAX_ANSWER_BYTES), 'plant-a', 'answers').ok);
    assert.equal(problemOf(parseHubBound(big(MAX_ANSWER_BYTES + 1), 'plant-a', 'answers')), `message of ${MAX_ANSWER_BYTES + 1} bytes is over the ${MAX_ANSWER_BYTES} bytes an edge may send`);
    // A result as large as an edge lets through (its clamp's limit) fits with the answer around it.
    const largest = { content: [{ type: 'text', text: '' }] };
    largest.content[0]!.text = 'r'.repeat(DEFAULTS.maxResultBytes - Buffer.byteLength(JSON.stringify(largest)));
    assert.equal(Buffer.byteLength(JSON.stringify(largest)), DEFAULTS.maxResultBytes);
    assert.ok(parseHubBound(JSON.stringify({ t: 'answer', id: 'f'.repeat(32), result: largest }), 'plant-a', 'answers').ok);
    // Counted in bytes: 400 000 three-byte characters are 1.2 MB, though fewer than a million characters.
    const wide = JSON.stringify({ t: 'answer', id: 'abc', result: '€'.repeat(400_000) });
    assert.ok(Buffer.byteLength(wide) > MAX_ANSWER_BYTES);
    assert.ok(wide.length < MAX_ANSWER_BYTES);
    assert.match(problemOf(parseHubBound(wide, 'plant-a', 'answers')), new RegExp(`^message of ${Buffer.byteLength(wide)} bytes is over the ${MAX_ANSWER_BYTES} bytes`));
  });
});

describe('messages a hub sends an edge', () => {
  const call = (fields: Record<string, unknown> = {}) => JSON.stringify({ t: 'call', id: 'c1', tool: 'x', arguments: { a: 1 }, caller: { subject: 's' }, hub: '/hub', protocolVersion: '2025-11-25', ...fields });

  it('reads a call and a cancel', () => {
    assert.deepEqual(parseEdgeBound(call()), { ok: true, value: { t: 'call', id: 'c1', tool: 'x', arguments: { a: 1 }, caller: { subject: 's' }, hub: '/hub', protocolVersion: '2025-11-25' } });
    assert.deepEqual(parseEdgeBound(JSON.stringify({ t: 'cancel', id: 'c1', reason: 'timeout' })), { ok: true, value: { t: 'cancel', id: 'c1', reason: 'timeout' } });
    assert.deepEqual(parseEdgeBound(JSON.stringify({ t: 'cancel', id: 'c1' })), { ok: true, value: { t: 'cancel', id: 'c1', reason: 'cancelled' } });
  });

  it('fills what a call may lack, and never takes a caller that is not an object', () => {
    const parsed = parseEdgeBound(call({ caller: 'root', hub: undefined, protocolVersion: undefined }));
    assert.ok(parsed.ok && parsed.value.t === 'call');
    assert.deepEqual(parsed.value.caller, {});
    assert.equal(parsed.value.hub, '');
    assert.equal(parsed.value.protocolVersion, '');
  });

  it('refuses what is not a call or a cancel', () => {
    for (const text of ['nonsense', '[]', JSON.stringify({ t: 'call', tool: 'x', arguments: {} }), call({ tool: 5 }), call({ arguments: [1] }), call({ arguments: null }), call({ t: 'answer' })]) {
      assert.equal(parseEdgeBound(text).ok, false, text);
    }
  });
});

describe("an edge flow's progress and log lines on the answers channel", () => {
  const note = (fields: Record<string, unknown>) => JSON.stringify({ id: 'c1', ...fields });

  it('reads a progress report and a log line for a call, checked as a local flow’s are', () => {
    assert.deepEqual(parseHubBound(note({ t: 'progress', progress: 2, total: 5, message: 'two of five' }), 'plant-a', 'answers'), {
      ok: true,
      value: { t: 'progress', id: 'c1', report: { progress: 2, total: 5, message: 'two of five' } },
    });
    assert.deepEqual(parseHubBound(note({ t: 'log', level: 'warning', data: { valve: 3 }, logger: 'calibration' }), 'plant-a', 'answers'), {
      ok: true,
      value: { t: 'log', id: 'c1', line: { level: 'warning', data: { valve: 3 }, logger: 'calibration' } },
    });
    // Long texts are cut as for a local flow: they are for people.
    const parsed = parseHubBound(note({ t: 'progress', progress: 1, message: 'm'.repeat(5_000) }), 'plant-a', 'answers');
    assert.ok(parsed.ok && parsed.value.t === 'progress');
    assert.equal(parsed.value.report.message?.length, 1_000);
  });

  it('refuses a report or line a local flow could not send, naming the field', () => {
    assert.equal(problemOf(parseHubBound(note({ t: 'progress', progress: 'half' }), 'plant-a', 'answers')), 'a progress report has a bad progress');
    assert.equal(problemOf(parseHubBound(note({ t: 'progress', progress: null }), 'plant-a', 'answers')), 'a progress report has a bad progress');
    assert.equal(problemOf(parseHubBound(note({ t: 'progress', progress: 1, total: '9' }), 'plant-a', 'answers')), 'a progress report has a bad total');
    assert.equal(problemOf(parseHubBound(note({ t: 'log', level: 'loud', data: 'x' }), 'plant-a', 'answers')), 'a log line has a bad level');
    assert.equal(problemOf(parseHubBound(note({ t: 'log', level: 'info' }), 'plant-a', 'answers')), 'a log line has a bad data');
    assert.equal(problemOf(parseHubBound(JSON.stringify({ t: 'progress', progress: 1 }), 'plant-a', 'answers')), 'an answer needs t "answer" and an id');
  });

  it('refuses a report or line over 64 KiB, though an answer that large is taken', () => {
    const sized = (bytes: number) => {
      const base = note({ t: 'log', level: 'info', data: '' });
      return note({ t: 'log', level: 'info', data: 'd'.repeat(bytes - base.length) });
    };
    assert.ok(parseHubBound(sized(MAX_NOTE_BYTES), 'plant-a', 'answers').ok);
    assert.equal(problemOf(parseHubBound(sized(MAX_NOTE_BYTES + 1), 'plant-a', 'answers')), `a log of ${MAX_NOTE_BYTES + 1} bytes is over the ${MAX_NOTE_BYTES} bytes an edge may send`);
  });

  it('tells the edge whether the client wants progress and from which level it wants log lines', () => {
    const call = (fields: Record<string, unknown>) => JSON.stringify({ t: 'call', id: 'c1', tool: 'x', arguments: {}, caller: {}, hub: '/hub', protocolVersion: '2026-07-28', ...fields });
    const parsed = parseEdgeBound(call({ progress: true, logLevel: 'notice' }));
    assert.ok(parsed.ok && parsed.value.t === 'call');
    assert.equal(parsed.value.progress, true);
    assert.equal(parsed.value.logLevel, 'notice');
    // Anything else is as if unsaid: no level means no log lines relayed.
    const odd = parseEdgeBound(call({ progress: 'yes', logLevel: 'verbose' }));
    assert.ok(odd.ok && odd.value.t === 'call');
    assert.equal('progress' in odd.value, false);
    assert.equal('logLevel' in odd.value, false);
  });
});

describe('questions an edge flow asks the client, and the rounds that bring the answers', () => {
  const CITY = { elicitation: { message: 'Which city?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } } } } };

  it('reads the questions as a local mcp-tool-input payload has them, under the call id', () => {
    assert.deepEqual(parseHubBound(JSON.stringify({ t: 'ask', id: 'c1', requests: { city: CITY }, state: { step: 1 } }), 'plant-a', 'answers'), {
      ok: true,
      value: { t: 'ask', id: 'c1', ask: { requests: { city: { method: 'elicitation/create', params: CITY.elicitation } }, state: { step: 1 } } },
    });
  });

  it('refuses questions a local flow could not ask, naming why', () => {
    const refused = (requests: unknown) => problemOf(parseHubBound(JSON.stringify({ t: 'ask', id: 'c1', requests }), 'plant-a', 'answers'));
    assert.equal(refused({}), 'its questions were refused: msg.payload.requests is empty: ask for at least one thing');
    assert.match(refused({ city: { elicitation: { message: 'Where?', requestedSchema: { type: 'object', properties: { where: { type: 'object' } } } } } }), /^its questions were refused: requests\.city: /);
    assert.match(refused({ 'no spaces allowed': CITY }), /^its questions were refused: request key/);
    assert.match(refused({ x: { method: 'tools/call', params: {} } }), /unknown method "tools\/call"/);
  });

  it('reads the round a hub sends with the answers, and leaves out what is not shaped like one', () => {
    const call = (input: unknown) => JSON.stringify({ t: 'call', id: 'c1', tool: 'x', arguments: {}, caller: {}, hub: '/hub', protocolVersion: '2026-07-28', input, clientCapabilities: { elicitation: { form: {} } } });
    const parsed = parseEdgeBound(call({ round: 1, inputResponses: { city: { action: 'accept', content: { city: 'Oslo' } } }, state: { step: 1 } }));
    assert.ok(parsed.ok && parsed.value.t === 'call');
    assert.deepEqual(parsed.value.input, { round: 1, inputResponses: { city: { action: 'accept', content: { city: 'Oslo' } } }, state: { step: 1 } });
    assert.deepEqual(parsed.value.clientCapabilities, { elicitation: { form: {} } });
    const refusal = parseEdgeBound(call({ round: 2, inputError: { code: -32021, message: 'cannot', keys: ['city'] } }));
    assert.ok(refusal.ok && refusal.value.t === 'call');
    assert.deepEqual(refusal.value.input, { round: 2, inputError: { code: -32021, message: 'cannot', keys: ['city'] } });
    for (const odd of [{ round: -1 }, { round: 1.5 }, { round: 99 }, 'round 1', null]) {
      const read = parseEdgeBound(call(odd));
      assert.ok(read.ok && read.value.t === 'call');
      assert.equal(read.value.input, undefined, JSON.stringify(odd));
    }
  });
});
