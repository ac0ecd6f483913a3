import assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { setImmediate as flush } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { EdgeHub } from '../../lib/edge/edge-hub.js';
import { siteChannel } from '../../lib/edge/edge-protocol.js';
import { parseInputPayload } from '../../lib/input/input-requests.js';
import { compileSchema } from '../../lib/mcp/json-schema.js';
import { linearPattern } from '../../lib/mcp/linear-pattern.js';
import { checkSchemaText, parseToolConfig, type ToolDefinition } from '../../lib/mcp/tool-definition.js';
import { DEFAULTS } from '../../lib/core/defaults.js';
import { resultFromOutcome } from '../../lib/mcp/tool-result.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { sayIssues } from '../../nodes/mcp-tool-registry/schema-sentences.js';
import { recordingLogger } from '../support/recording-logger.js';

const CATASTROPHIC = '^(a+)+$';
// Forty a's and a '!': a backtracking engine tries every way of splitting the a's between the two
// `+` (2^40 of them) before it gives up, hours of a blocked event loop; a linear-time one reads the
// string once. (On the backtracking engine this file does not fail, it hangs: that is the bug.)
const HOSTILE = `${'a'.repeat(40)}!`;
// The one timing bound in this file, asked for by the issue (#22, item 1): a catastrophic pattern with
// hostile input must not block the event loop for more than 50 ms. Everything measured is synchronous,
// so it blocks the event loop for as long as it computes. It is measured in CPU time, not wall time:
// on a loaded test machine (two cores shared by several suites) wall time stretches whatever runs,
// while a backtracking engine would still spend hours of CPU here. The engines are warmed first, so
// the bound measures the compile and the check, not the first compile of ajv's meta-schema.
const MAX_BLOCKED_MS = 50;

function blockedMs(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function warmEngines(): void {
  compileSchema({ type: 'object', properties: { a: { type: 'string', pattern: '^b+$' } } })({ a: 'bb' });
  compileSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string', pattern: '^b+$' } } })({ a: 'bb' });
}

/** What an endpoint makes of a flow's (or an edge's) answer: the result the client gets. */
const answered = (tool: ToolDefinition, result: unknown): CallToolResult => resultFromOutcome(tool, { kind: 'answered', result }, DEFAULTS.maxResultBytes);

const toolWith = (input: object, output?: object): ToolDefinition =>
  parseToolConfig({ toolName: 'lookup', endpoint: '/mcp', timeout: '60', inputSchema: JSON.stringify(input), outputSchema: output ? JSON.stringify(output) : '' });

describe('schema patterns run in linear time: a catastrophic pattern with hostile input blocks nothing', () => {
  warmEngines();

  it("checks a caller's arguments against an input-schema pattern", () => {
    let problems: unknown;
    const ms = blockedMs(() => {
      const tool = toolWith({ type: 'object', properties: { code: { type: 'string', pattern: CATASTROPHIC } }, required: ['code'] });
      problems = tool.checkArguments({ code: HOSTILE });
    });
    assert.deepEqual(problems, [{ pointer: '/code', message: `must match pattern "${CATASTROPHIC}"` }]);
    assert.ok(ms < MAX_BLOCKED_MS, `compiling and checking blocked the event loop for ${ms.toFixed(1)} ms`);
  });

  it("checks a flow's structured result against an output-schema pattern", () => {
    let result: CallToolResult | undefined;
    const ms = blockedMs(() => {
      const tool = toolWith({ type: 'object' }, { type: 'object', properties: { code: { type: 'string', pattern: CATASTROPHIC } } });
      result = answered(tool, { code: HOSTILE });
    });
    assert.equal(result?.isError, true);
    assert.match(JSON.stringify(result?.content), /must match pattern/);
    assert.ok(ms < MAX_BLOCKED_MS, `compiling and checking blocked the event loop for ${ms.toFixed(1)} ms`);
  });

  it('checks property names against patternProperties and propertyNames, in both dialects', () => {
    for (const dialect of [{}, { $schema: 'http://json-schema.org/draft-07/schema#' }]) {
      let problems: unknown[] = [];
      const ms = blockedMs(() => {
        const byPattern = compileSchema({ ...dialect, type: 'object', patternProperties: { [CATASTROPHIC]: { type: 'integer' } }, additionalProperties: false });
        const byName = compileSchema({ ...dialect, type: 'object', propertyNames: { pattern: CATASTROPHIC } });
        problems = [...byPattern({ [HOSTILE]: 1 }), ...byName({ [HOSTILE]: 1 })];
      });
      assert.deepEqual(problems, [
        { pointer: `/${HOSTILE}`, message: 'is not allowed' },
        { pointer: '/', message: `must match pattern "${CATASTROPHIC}"` },
        { pointer: '/', message: 'property name must be valid' },
      ]);
      assert.ok(ms < MAX_BLOCKED_MS, `compiling and checking blocked the event loop for ${ms.toFixed(1)} ms`);
    }
  });

  it("checks an edge's answer against the output schema it announced, on the hub", async () => {
    const store = new MemoryStore();
    let checked: { result: CallToolResult; ms: number } | undefined;
    const hub: EdgeHub = new EdgeHub({
      store,
      sites: ['plant-a'],
      naming: '{site}.{tool}',
      maxPendingPerSite: 2,
      endpoint: '/hub',
      logger: recordingLogger(),
      onToolsChanged: () => undefined,
      // What the hub endpoint's settle does with an answer: the result is checked against the tool's output schema.
      deliver: (_executionId, result) => {
        const tool = hub.tools()[0]!;
        let sent: CallToolResult | undefined;
        const ms = blockedMs(() => (sent = answered(tool, result)));
        checked = { result: sent!, ms };
        return 'settled';
      },
      failSite: () => undefined,
      ask: () => 'unknown',
    });
    // The edge's side of the calls channel: someone listens, so the hub's call is not refused as unheard.
    store.subscribe(siteChannel('plant-a', 'calls'), () => undefined);
    try {
      const listing = { name: 'read', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { code: { type: 'string', pattern: CATASTROPHIC } } } };
      await store.publish(siteChannel('plant-a', 'announce'), JSON.stringify({ t: 'announce', site: 'plant-a', instance: 'i1', tools: [{ listing, timeoutMs: 5_000, maxDurationMs: 5_000 }] }));
      await flush();
      assert.deepEqual(hub.tools().map((tool) => tool.name), ['plant-a.read']);
      const id = 'f'.repeat(32);
      hub.send({ executionId: id, toolName: 'plant-a.read', arguments: {} } as never, { site: 'plant-a', tool: 'read' }, {}, '2025-11-25');
      const answer = { t: 'answer', id, result: { content: [{ type: 'text', text: HOSTILE }], structuredContent: { code: HOSTILE } } };
      await store.publish(siteChannel('plant-a', 'answers'), JSON.stringify(answer));
      await flush();
      assert.equal(checked?.result.isError, true);
      assert.match(JSON.stringify(checked?.result.content), /must match pattern/);
      assert.ok(checked!.ms < MAX_BLOCKED_MS, `checking the answer blocked the hub's event loop for ${checked!.ms.toFixed(1)} ms`);
    } finally {
      hub.close();
      await store.close();
    }
  });
});

describe('patterns keep their JavaScript meaning on the linear-time engine', () => {
  // Each pattern is one users write; each input is one where V8's `u` reading and RE2's own would
  // differ if the pattern were not translated (\s and \S with Unicode spaces, `.` and line ends,
  // astral characters, property names RE2 spells otherwise).
  const PATTERNS = [
    '^[a-z0-9_-]+$', '\\d{3}', '^\\d{3}-\\d{4}$', '^\\S+@\\S+$', '^\\s*$', '^[^\\s]+$', '^[\\S]+$', '^[\\s\\d]+$',
    '^.+$', '^.$', 'a.b', '^\\w+$', '\\bcat\\b', '^\\p{L}+$', '^\\p{Letter}+$', '^\\p{Lu}', '^[\\p{L}\\p{N} ]+$', '^\\P{L}+$',
    '^\\p{Script=Greek}+$', '^\\p{gc=Nd}+$', '^\\p{ASCII}+$', '^[\\P{ASCII}]+$', '^\\u00e9$', '^\\u{1F600}$', '^\\uD83D\\uDE00$',
    '^[😀-😂]$', '^(?<year>\\d{4})-(?<month>\\d{2})$', '^[-a]$', '^[%--]$', '[[]', '^[^]$', '^[]$', '^[\\-\\]\\\\]+$', '\\$\\^\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/',
    '^https?://[^/]+/', '^[A-Z]{2}-\\d{4}$', '^([a-zA-Z0-9._%+-]+)@([a-zA-Z0-9.-]+)\\.([a-zA-Z]{2,})$', 'x*?y', '^(ab|cd){2,3}$',
  ];
  const INPUTS = [
    '', 'a', 'abc', 'ab_c-1', 'AB', '123', 'x1234', '555-1234', 'user@example.com', 'a\u00a0b@c', 'a b@c', ' \t\n', '\u00a0\u2003\u3000\ufeff',
    'a\nb', 'a\rb', 'a\u2028b', 'a.b', 'axb', 'the cat sat', 'concat', 'Müller', 'ÉCOLE', 'é', 'e\u0301', 'αβγ', '٣٤', '😀', '😁', '😃',
    '2024-05', '[', '-', '%', ']\\-', '$^.*+?()[]{}|/', 'https://x.test/a', 'AB-1234', 'xxy', 'abcd', 'cdcdcd', '_',
  ];

  for (const pattern of PATTERNS) {
    it(`/${pattern}/u`, () => {
      const onV8 = new RegExp(pattern, 'u');
      const linear = linearPattern(pattern);
      for (const input of INPUTS) assert.equal(linear.test(input), onV8.test(input), `/${pattern}/u on ${JSON.stringify(input)}`);
    });
  }

  it('refuses, as before, a pattern that is no valid JavaScript pattern with the u flag', () => {
    assert.throws(() => compileSchema({ type: 'string', pattern: 'a{' }), /Invalid regular expression: \/a\{\/u/);
    assert.throws(() => compileSchema({ type: 'string', pattern: '\\-' }), /Invalid regular expression/);
  });
});

describe('a pattern the linear-time engine cannot run is refused where the schema is set', () => {
  const en = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'locales', 'en-US', 'mcp-tool-registry.json'), 'utf8'));
  const say = (key: string, params: Record<string, string | number> = {}) =>
    (key.split('.').reduce((node, part) => node[part], en['mcp-tool-registry']) as string).replace(/__(\w+)__/g, (_, name: string) => String(params[name] ?? ''));

  it('names each unsupported pattern and what in it is unsupported, in the editor check and at deploy', () => {
    const schema = JSON.stringify({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^(?=.*\\d)\\w+$' }, b: { type: 'string', pattern: '^(\\w)\\1$' }, c: { type: 'string', pattern: '^ok$' } },
      patternProperties: { '(?<!x)y': {} },
    });
    const issues = checkSchemaText(schema, 'input');
    assert.deepEqual(issues, [
      { key: 'pattern', params: { pattern: '"^(?=.*\\\\d)\\\\w+$"', detail: 'lookahead (?= is not supported' } },
      { key: 'pattern', params: { pattern: '"^(\\\\w)\\\\1$"', detail: 'the backreference \\1 is not supported' } },
      { key: 'pattern', params: { pattern: '"(?<!x)y"', detail: 'lookbehind (?<! is not supported' } },
    ]);
    assert.equal(
      sayIssues(issues.slice(0, 1), say),
      'The pattern "^(?=.*\\\\d)\\\\w+$" cannot be evaluated by the linear-time pattern engine: lookahead (?= is not supported.',
    );
    assert.throws(() => toolWith(JSON.parse(schema)), /pattern "\^\(\?=\.\*\\\\d\)\\\\w\+\$" cannot run on the linear-time engine: lookahead/);
  });

  it('refuses repeat counts above 1000 and Unicode properties RE2 does not know, and accepts the rest', () => {
    assert.deepEqual(checkSchemaText(JSON.stringify({ type: 'object', properties: { a: { type: 'string', pattern: 'a{1001}' } } }), 'output'), [
      { key: 'pattern', params: { pattern: '"a{1001}"', detail: 'invalid repeat count: `{1001}`' } },
    ]);
    assert.deepEqual(checkSchemaText(JSON.stringify({ type: 'object', propertyNames: { pattern: '\\p{Script_Extensions=Latin}' } }), 'output')[0]?.params.detail,
      'the Unicode property \\p{Script_Extensions=Latin} is not supported (General_Category values, Script=, ASCII and Any are)');
    assert.deepEqual(checkSchemaText(JSON.stringify({ type: 'object', properties: { a: { type: 'string', pattern: '^(?:[a-z]{1,1000})$' } } }), 'input'), []);
  });

  it("refuses an edge's tool with such a pattern on the hub and logs why, keeping its other tools", async () => {
    const store = new MemoryStore();
    const logger = recordingLogger();
    const hub = new EdgeHub({
      store, sites: ['plant-a'], naming: '{site}.{tool}', maxPendingPerSite: 2, endpoint: '/hub', logger,
      onToolsChanged: () => undefined, deliver: () => 'unknown', failSite: () => undefined, ask: () => 'unknown',
    });
    try {
      const tool = (name: string, pattern: string) => ({ listing: { name, inputSchema: { type: 'object', properties: { s: { type: 'string', pattern } } } }, timeoutMs: 5_000, maxDurationMs: 5_000 });
      await store.publish(siteChannel('plant-a', 'announce'), JSON.stringify({ t: 'announce', site: 'plant-a', instance: 'i1', tools: [tool('ok', '^a+$'), tool('sly', '(a|b)\\1')] }));
      await flush();
      assert.deepEqual(hub.tools().map((definition) => definition.name), ['plant-a.ok']);
      assert.equal(logger.lines.length, 1);
      assert.match(logger.lines[0]!, /^warn tool "sly" of site plant-a was refused: pattern "\(a\|b\)\\\\1" cannot run on the linear-time engine: the backreference \\1 is not supported/);
    } finally {
      hub.close();
      await store.close();
    }
  });

  it("refuses a flow's elicitation whose requested schema has such a pattern, naming the field", () => {
    const ask = (pattern: unknown) =>
      parseInputPayload({ executionId: 'e1', requests: { code: { elicitation: { message: 'Code?', requestedSchema: { type: 'object', properties: { code: { type: 'string', pattern } } } } } } });
    assert.deepEqual(ask('^(?!admin)\\w+$'), {
      ok: false,
      problem: 'requests.code: elicitation.requestedSchema.properties.code: pattern "^(?!admin)\\\\w+$" cannot run on the linear-time engine: lookahead (?! is not supported',
    });
    assert.deepEqual(ask('a{'), { ok: false, problem: 'requests.code: elicitation.requestedSchema.properties.code: pattern "a{" is not a valid regular expression' });
    assert.deepEqual(ask(7), { ok: false, problem: 'requests.code: elicitation.requestedSchema.properties.code: pattern must be a string' });
    assert.equal(ask('^[A-Z]{3}$').ok, true);
  });
});
