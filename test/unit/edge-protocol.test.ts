import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ANNOUNCEMENT_BYTES, MAX_ANSWER_BYTES, MAX_ANSWER_ERROR_LENGTH, MAX_EDGE_PROMPTS, MAX_EDGE_RESOURCES, MAX_EDGE_TOOLS, MAX_NOTE_BYTES, MAX_UPDATED_URI_LENGTH, parseEdgeBound, parseHubBound, SITE_PATTERN, siteChannel } from '../../lib/edge/edge-protocol.js';
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

  it('keeps what an edge says it reads (several calls in one message) only when it is true', () => {
    const batches = parseHubBound(announcement({ readsBatches: true }), 'plant-a', 'announce');
    assert.ok(batches.ok);
    assert.deepEqual(batches.value, { t: 'announce', site: 'plant-a', instance: 'i1', tools: [tool('x')], readsBatches: true });
    const other = parseHubBound(announcement({ readsBatches: 'yes' }), 'plant-a', 'announce');
    assert.ok(other.ok && !('readsBatches' in other.value));
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

  it('keeps what a hub says it reads (several answers in one message) only when it is true', () => {
    const batches = parseEdgeBound(call({ readsBatches: true }));
    assert.ok(batches.ok && batches.value.t === 'call' && batches.value.readsBatches === true);
    for (const value of ['yes', 1, false, null]) {
      const parsed = parseEdgeBound(call({ readsBatches: value }));
      assert.ok(parsed.ok && !('readsBatches' in parsed.value), String(value));
    }
    const content = parseEdgeBound(JSON.stringify({ t: 'content', id: 'c2', request: { kind: 'resource-read', uri: 'a://b' }, caller: {}, hub: '/hub', protocolVersion: 'v', readsBatches: true }));
    assert.ok(content.ok && content.value.t === 'content' && content.value.readsBatches === true);
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

describe("an edge's resources, prompts and resource updates on the announce channel", () => {
  const fixed = (uri = 'plant://line-1/status', extra: Record<string, unknown> = {}) => ({ listing: { uri, name: 'status', mimeType: 'application/json' }, timeoutMs: 30_000, ...extra });
  const template = (extra: Record<string, unknown> = {}) => ({ listing: { uriTemplate: 'sensors://{line}/readings', name: 'readings' }, timeoutMs: 10_000, ...extra });
  const prompt = (extra: Record<string, unknown> = {}) => ({ listing: { name: 'summary', arguments: [{ name: 'line', required: true }] }, timeoutMs: 30_000, ...extra });
  const parse = (text: string) => parseHubBound(text, 'plant-a', 'announce');

  it('reads an announcement with resources, templates and prompts, with their completions', () => {
    const resources = [fixed(), template({ completions: { line: ['line-1', 'line-2'] }, flowCompletions: [] })];
    const prompts = [prompt({ flowCompletions: ['line'] })];
    assert.deepEqual(parse(announcement({ resources, prompts })), { ok: true, value: { t: 'announce', site: 'plant-a', instance: 'i1', tools: [tool('x')], resources, prompts } });
    // An edge of before content was relayed says neither; empty lists read the same.
    for (const fields of [{}, { resources: [], prompts: [] }]) {
      const parsed = parse(announcement(fields));
      assert.ok(parsed.ok && parsed.value.t === 'announce');
      assert.equal('resources' in parsed.value, false);
      assert.equal('prompts' in parsed.value, false);
    }
  });

  it('takes 200 resources and 200 prompts, and refuses 201 of either', () => {
    const many = (count: number, item: (index: number) => unknown) => Array.from({ length: count }, (_, index) => item(index));
    assert.ok(parse(announcement({ resources: many(MAX_EDGE_RESOURCES, (index) => fixed(`plant://r/${index}`)) })).ok);
    assert.ok(parse(announcement({ prompts: many(MAX_EDGE_PROMPTS, (index) => prompt({ listing: { name: `p${index}` } })) })).ok);
    assert.equal(problemOf(parse(announcement({ resources: many(MAX_EDGE_RESOURCES + 1, (index) => fixed(`plant://r/${index}`)) }))), `resources must be an array of at most ${MAX_EDGE_RESOURCES}`);
    assert.equal(problemOf(parse(announcement({ prompts: many(MAX_EDGE_PROMPTS + 1, (index) => prompt({ listing: { name: `p${index}` } })) }))), `prompts must be an array of at most ${MAX_EDGE_PROMPTS}`);
    assert.equal(problemOf(parse(announcement({ resources: { 0: fixed() } }))), 'resources must be an array of at most 200');
  });

  it('refuses a resource or prompt without its listing, address, name or time limit, naming the field and index', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ resources: [fixed(), { listing: { name: 'nowhere' }, timeoutMs: 1 }] }, 'resources[1] has no listing with a name and a URI'],
      [{ resources: [{ listing: { name: 'odd', uri: 5 }, timeoutMs: 1 }] }, 'resources[0] has no listing with a name and a URI'],
      [{ resources: [{ listing: { uri: 'plant://a' }, timeoutMs: 1 }] }, 'resources[0] has no listing with a name and a URI'],
      [{ resources: [{ timeoutMs: 1 }] }, 'resources[0] has no listing with a name and a URI'],
      [{ resources: ['plant://a'] }, 'resources[0] has no listing with a name and a URI'],
      [{ prompts: [{ listing: { title: 'Summary' }, timeoutMs: 1 }] }, 'prompts[0] has no listing with a name'],
      [{ prompts: [{ listing: { name: 7 }, timeoutMs: 1 }] }, 'prompts[0] has no listing with a name'],
      [{ resources: [fixed(), fixed('plant://b', { timeoutMs: undefined })] }, 'resources[1] needs timeoutMs'],
      [{ resources: [fixed('plant://b', { timeoutMs: 0 })] }, 'resources[0] needs timeoutMs'],
      [{ prompts: [prompt({ timeoutMs: '30000' })] }, 'prompts[0] needs timeoutMs'],
      [{ prompts: [prompt({ timeoutMs: Number.POSITIVE_INFINITY })] }, 'prompts[0] needs timeoutMs'],
    ];
    for (const [fields, problem] of cases) assert.equal(problemOf(parse(announcement(fields))), problem, JSON.stringify(fields).slice(0, 120));
  });

  it('refuses completions that are not lists of short strings, naming the item', () => {
    const cases: Array<Record<string, unknown>> = [
      { completions: ['line-1'] },
      { completions: { line: 'line-1, line-2' } },
      { completions: { line: ['line-1', 2] } },
      { completions: { line: Array.from({ length: 1_001 }, (_, index) => `v${index}`) } },
      { completions: { line: ['v'.repeat(1_025)] } },
      { flowCompletions: 'line' },
      { flowCompletions: [null] },
    ];
    for (const extra of cases) {
      assert.equal(problemOf(parse(announcement({ resources: [template(extra)] }))), 'resources[0] has completions that are not lists of strings', JSON.stringify(extra).slice(0, 80));
      assert.equal(problemOf(parse(announcement({ prompts: [prompt(), prompt(extra)] }))), 'prompts[1] has completions that are not lists of strings', JSON.stringify(extra).slice(0, 80));
    }
    // At the limits: 1000 values, each up to 1024 characters.
    assert.ok(parse(announcement({ resources: [template({ completions: { line: Array.from({ length: 1_000 }, (_, index) => `v${index}`) } })] })).ok);
    assert.ok(parse(announcement({ resources: [template({ completions: { line: ['v'.repeat(1_024)] } })] })).ok);
  });

  it('reads a resource update of the site, and refuses one naming another site, without a URI or with one over 2048 characters', () => {
    const update = (fields: Record<string, unknown> = {}) => JSON.stringify({ t: 'updated', site: 'plant-a', instance: 'i1', uri: 'plant://line-1/status', ...fields });
    assert.deepEqual(parse(update()), { ok: true, value: { t: 'updated', site: 'plant-a', instance: 'i1', uri: 'plant://line-1/status' } });
    // Only what the hub uses is kept.
    assert.deepEqual(parse(update({ extra: 'x' })), { ok: true, value: { t: 'updated', site: 'plant-a', instance: 'i1', uri: 'plant://line-1/status' } });
    assert.equal(problemOf(parse(update({ site: 'plant-b' }))), 'it names site "plant-b" on the channel of site plant-a');
    assert.equal(problemOf(parse(update({ instance: '' }))), 'no instance');
    const longest = `plant://x/${'u'.repeat(MAX_UPDATED_URI_LENGTH - 'plant://x/'.length)}`;
    assert.equal(longest.length, MAX_UPDATED_URI_LENGTH);
    assert.ok(parse(update({ uri: longest })).ok);
    for (const uri of [`${longest}u`, '', 5, undefined]) {
      assert.equal(problemOf(parse(update({ uri }))), `a resource update needs a URI of at most ${MAX_UPDATED_URI_LENGTH} characters`, String(uri).slice(0, 20));
    }
    // An update is said on the announce channel only: on the answers channel it is no answer.
    assert.match(problemOf(parseHubBound(update(), 'plant-a', 'answers')), /needs t "answer" and an id/);
  });

  it("keeps an answer's error, cut to 2000 characters, and ignores one that is not text", () => {
    const answer = (error: unknown) => parseHubBound(JSON.stringify({ t: 'answer', id: 'abc', result: null, error }), 'plant-a', 'answers');
    assert.deepEqual(answer('Prompt "summary" failed: no data'), { ok: true, value: { t: 'answer', id: 'abc', result: null, error: 'Prompt "summary" failed: no data' } });
    const long = answer('e'.repeat(MAX_ANSWER_ERROR_LENGTH + 500));
    assert.ok(long.ok && long.value.t === 'answer');
    assert.equal(long.value.error, 'e'.repeat(MAX_ANSWER_ERROR_LENGTH));
    const odd = answer({ message: 'no' });
    assert.ok(odd.ok && odd.value.t === 'answer');
    assert.equal('error' in odd.value, false);
  });
});

describe('reads, prompts and completions a hub sends an edge', () => {
  const content = (request: unknown, fields: Record<string, unknown> = {}) =>
    JSON.stringify({ t: 'content', id: 'c1', instance: 'i1', request, caller: { subject: 's', groups: ['ops'] }, hub: '/hub', protocolVersion: '2026-07-28', ...fields });
  const requestOf = (text: string) => {
    const parsed = parseEdgeBound(text);
    assert.ok(parsed.ok && parsed.value.t === 'content', text);
    return parsed.value;
  };

  it('reads a resource read with the edge URI, and what came with it', () => {
    assert.deepEqual(parseEdgeBound(content({ kind: 'resource-read', uri: 'plant://line-1/status' })), {
      ok: true,
      value: { t: 'content', id: 'c1', instance: 'i1', request: { kind: 'resource-read', uri: 'plant://line-1/status' }, caller: { subject: 's', groups: ['ops'] }, hub: '/hub', protocolVersion: '2026-07-28' },
    });
    const round = requestOf(content({ kind: 'resource-read', uri: 'plant://a' }, { input: { round: 1, inputResponses: { ok: { action: 'accept', content: {} } } }, caller: 'root', hub: undefined }));
    assert.deepEqual(round.input, { round: 1, inputResponses: { ok: { action: 'accept', content: {} } } });
    assert.deepEqual(round.caller, {});
    assert.equal(round.hub, '');
  });

  it('reads a prompt with string arguments only', () => {
    assert.deepEqual(requestOf(content({ kind: 'prompt-get', name: 'summary', arguments: { line: 'line-1' } })).request, { kind: 'prompt-get', name: 'summary', arguments: { line: 'line-1' } });
    assert.deepEqual(requestOf(content({ kind: 'prompt-get', name: 'summary', arguments: {} })).request, { kind: 'prompt-get', name: 'summary', arguments: {} });
  });

  it('reads a completion for a prompt and for a resource template, with the other arguments when they are text', () => {
    assert.deepEqual(requestOf(content({ kind: 'completion', ref: { type: 'ref/prompt', name: 'summary' }, argument: { name: 'line', value: 'li' }, arguments: { shift: 'night' } })).request, {
      kind: 'completion',
      ref: { type: 'ref/prompt', name: 'summary' },
      argument: { name: 'line', value: 'li' },
      arguments: { shift: 'night' },
    });
    assert.deepEqual(requestOf(content({ kind: 'completion', ref: { type: 'ref/resource', uri: 'sensors://{line}/readings', name: 'dropped' }, argument: { name: 'line', value: '' } })).request, {
      kind: 'completion',
      ref: { type: 'ref/resource', uri: 'sensors://{line}/readings' },
      argument: { name: 'line', value: '' },
    });
    // Other arguments that are not all text are left out, not taken as they are.
    const odd = requestOf(content({ kind: 'completion', ref: { type: 'ref/prompt', name: 'summary' }, argument: { name: 'line', value: 'l' }, arguments: { shift: 3 } })).request;
    assert.equal('arguments' in odd, false);
  });

  it('refuses a content call that is not a read, prompt or completion as they are shaped', () => {
    const requests: unknown[] = [
      undefined,
      'resource-read',
      { kind: 'resource-write', uri: 'plant://a' },
      { kind: 'resource-read' },
      { kind: 'resource-read', uri: 7 },
      { kind: 'prompt-get', arguments: {} },
      { kind: 'prompt-get', name: 'summary' },
      { kind: 'prompt-get', name: 'summary', arguments: { line: 1 } },
      { kind: 'prompt-get', name: 'summary', arguments: { line: null } },
      { kind: 'prompt-get', name: 'summary', arguments: ['line-1'] },
      { kind: 'completion', ref: { type: 'ref/prompt', name: 'summary' } },
      { kind: 'completion', ref: { type: 'ref/prompt', name: 'summary' }, argument: { name: 'line' } },
      { kind: 'completion', ref: { type: 'ref/prompt', name: 'summary' }, argument: { name: 'line', value: 5 } },
      { kind: 'completion', ref: { type: 'ref/prompt', uri: 'sensors://{line}' }, argument: { name: 'line', value: '' } },
      { kind: 'completion', ref: { type: 'ref/resource', name: 'summary' }, argument: { name: 'line', value: '' } },
      { kind: 'completion', ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'line', value: '' } },
      { kind: 'completion', argument: { name: 'line', value: '' } },
    ];
    for (const request of requests) {
      assert.deepEqual(parseEdgeBound(content(request)), { ok: false, problem: 'a content call needs a read, prompt or completion' }, JSON.stringify(request));
    }
    assert.equal(parseEdgeBound(content({ kind: 'resource-read', uri: 'plant://a' }, { id: 5 })).ok, false);
  });
});
