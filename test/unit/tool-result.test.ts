import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isCallToolResult, type CallToolResult } from '@modelcontextprotocol/server';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';
import { invalidArgumentsResult, isTextOnlyResult, normalizeResult, resultFromOutcome, toolError } from '../../lib/mcp/tool-result.js';

const plainTool = parseToolConfig({ toolName: 'weather', endpoint: '/mcp', inputSchema: '{"type":"object"}', timeout: '60' });
const structuredTool = parseToolConfig({
  toolName: 'forecast',
  endpoint: '/mcp',
  inputSchema: '{"type":"object"}',
  outputSchema: '{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"]}',
});

const LIMIT = 1024 * 1024;

function text(result: CallToolResult): string {
  const first = result.content[0];
  assert.ok(first && first.type === 'text', 'first content item is text');
  return first.text;
}

describe('normalizeResult', () => {
  it('turns a string into text content', () => {
    assert.deepEqual(normalizeResult(plainTool, 'sunny'), { content: [{ type: 'text', text: 'sunny' }] });
  });

  it('turns a plain object into JSON text without structuredContent when there is no output schema', () => {
    assert.deepEqual(normalizeResult(plainTool, { temp: 21 }), { content: [{ type: 'text', text: '{"temp":21}' }] });
  });

  it('adds structuredContent for a plain object when the tool has an output schema', () => {
    assert.deepEqual(normalizeResult(structuredTool, { temp: 21 }), {
      content: [{ type: 'text', text: '{"temp":21}' }],
      structuredContent: { temp: 21 },
    });
  });

  it('never makes an array structuredContent', () => {
    assert.deepEqual(normalizeResult(structuredTool, [1, 2]), { content: [{ type: 'text', text: '[1,2]' }] });
  });

  it('turns numbers and booleans into JSON text', () => {
    assert.deepEqual(normalizeResult(plainTool, 5), { content: [{ type: 'text', text: '5' }] });
    assert.deepEqual(normalizeResult(plainTool, false), { content: [{ type: 'text', text: 'false' }] });
  });

  it('passes a full CallToolResult through unchanged', () => {
    const full: CallToolResult = { content: [{ type: 'text', text: 'hi' }], structuredContent: { temp: 1 } };
    assert.equal(normalizeResult(structuredTool, full), full);
  });

  it('keeps only the fields MCP defines of a full result (a flow cannot pose as the protocol with resultType or cache fields)', () => {
    const full = { content: [{ type: 'text', text: 'hi' }], isError: false, _meta: { note: 1 }, resultType: 'input_required', ttlMs: 5, extra: true };
    assert.deepEqual(normalizeResult(plainTool, full), { content: [{ type: 'text', text: 'hi' }], isError: false, _meta: { note: 1 } });
  });

  it('treats an object whose content field is not valid MCP content as data', () => {
    for (const data of [{ content: 'x' }, { content: [{ type: 'bogus' }] }, { content: [{ type: 'text' }] }]) {
      assert.deepEqual(normalizeResult(plainTool, data), { content: [{ type: 'text', text: JSON.stringify(data) }] });
    }
  });

  it('turns null and undefined into empty content', () => {
    assert.deepEqual(normalizeResult(plainTool, null), { content: [] });
    assert.deepEqual(normalizeResult(plainTool, undefined), { content: [] });
  });
});

describe('resultFromOutcome', () => {
  it('returns the normalized answer when the flow answered without error', () => {
    assert.deepEqual(resultFromOutcome(plainTool, { kind: 'answered', result: 'sunny' }, LIMIT), {
      content: [{ type: 'text', text: 'sunny' }],
    });
  });

  it('treats error null or false as no error', () => {
    assert.equal(resultFromOutcome(plainTool, { kind: 'answered', result: 'ok', error: null }, LIMIT).isError, undefined);
    assert.equal(resultFromOutcome(plainTool, { kind: 'answered', result: 'ok', error: false }, LIMIT).isError, undefined);
  });

  it('reports a string error as a tool error naming the tool', () => {
    const result = resultFromOutcome(plainTool, { kind: 'answered', error: 'API down' }, LIMIT);
    assert.equal(result.isError, true);
    assert.equal(text(result), 'Tool "weather" failed: API down');
  });

  it('reports an error object by its message', () => {
    for (const error of [{ message: 'quota exceeded' }, new Error('quota exceeded')]) {
      const result = resultFromOutcome(plainTool, { kind: 'answered', error }, LIMIT);
      assert.equal(result.isError, true);
      assert.equal(text(result), 'Tool "weather" failed: quota exceeded');
    }
  });

  it('reports an error without a message as JSON', () => {
    assert.equal(text(resultFromOutcome(plainTool, { kind: 'answered', error: { code: 7 } }, LIMIT)), 'Tool "weather" failed: {"code":7}');
  });

  it('reports a timeout naming the tool and the limit in seconds', () => {
    const result = resultFromOutcome(plainTool, { kind: 'timeout', timeoutMs: 60_000 }, LIMIT);
    assert.equal(result.isError, true);
    assert.match(text(result), /"weather"/);
    assert.match(text(result), /60 s/);
    assert.match(text(resultFromOutcome(plainTool, { kind: 'timeout', timeoutMs: 1_500 }, LIMIT)), /1\.5 s/);
  });

  it('reports a stopped call with the reason', () => {
    const result = resultFromOutcome(plainTool, { kind: 'stopped', reason: 'the endpoint was redeployed' }, LIMIT);
    assert.equal(result.isError, true);
    assert.match(text(result), /"weather"/);
    assert.match(text(result), /the endpoint was redeployed/);
  });

  it('reports a cancelled call as an error', () => {
    const result = resultFromOutcome(plainTool, { kind: 'cancelled' }, LIMIT);
    assert.equal(result.isError, true);
    assert.match(text(result), /"weather" was cancelled/);
  });

  it('refuses an answer without structuredContent when the tool has an output schema', () => {
    for (const answer of ['sunny', [1], { content: [{ type: 'text', text: 'no structure' }] }]) {
      const result = resultFromOutcome(structuredTool, { kind: 'answered', result: answer }, LIMIT);
      assert.equal(result.isError, true, JSON.stringify(answer));
      assert.match(text(result), /"forecast" declares an output schema but its flow returned no structured content/);
    }
  });

  it('refuses structuredContent that does not match the output schema, naming the pointer', () => {
    const result = resultFromOutcome(structuredTool, { kind: 'answered', result: { temp: 'warm' } }, LIMIT);
    assert.equal(result.isError, true);
    assert.match(text(result), /does not match its output schema: \/temp: must be number/);
  });

  it('checks structuredContent of a full result too', () => {
    const full: CallToolResult = { content: [{ type: 'text', text: 'x' }], structuredContent: {} };
    assert.match(text(resultFromOutcome(structuredTool, { kind: 'answered', result: full }, LIMIT)), /\/temp: is required/);
  });

  it('passes valid structured content', () => {
    assert.deepEqual(resultFromOutcome(structuredTool, { kind: 'answered', result: { temp: 21 } }, LIMIT), {
      content: [{ type: 'text', text: '{"temp":21}' }],
      structuredContent: { temp: 21 },
    });
  });

  it('checks the structured content as the client will receive it: Infinity and NaN arrive as null', () => {
    for (const temp of [Infinity, -Infinity, NaN]) {
      const plain = resultFromOutcome(structuredTool, { kind: 'answered', result: { temp } }, LIMIT);
      assert.equal(plain.isError, true, String(temp));
      assert.match(text(plain), /"forecast" returned structured content that does not match its output schema: \/temp: must be number/);
      const full: CallToolResult = { content: [], structuredContent: { temp } };
      assert.equal(resultFromOutcome(structuredTool, { kind: 'answered', result: full }, LIMIT).isError, true, `full result, ${temp}`);
    }
  });

  it('sends the JSON form it checked: members JSON drops are gone, a Date is its string', () => {
    const when = new Date('2026-01-02T03:04:05Z');
    const result = resultFromOutcome(structuredTool, { kind: 'answered', result: { temp: 4, note: undefined, when } }, LIMIT);
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, { temp: 4, when: '2026-01-02T03:04:05.000Z' });
    assert.equal(Object.hasOwn(result.structuredContent!, 'note'), false);
  });

  it('answers a value JSON cannot carry (a BigInt, a circular structure) with a tool error naming the tool', () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular['self'] = circular;
    for (const result of [{ count: 10n }, circular, { content: [{ type: 'text', text: 'x' }], structuredContent: { n: 1n } }]) {
      const answered = resultFromOutcome(plainTool, { kind: 'answered', result }, LIMIT);
      assert.equal(answered.isError, true);
      assert.match((answered.content[0] as { text: string }).text, /answered with a value that cannot be sent as JSON/);
    }
  });

  it('passes a full result that is itself an error without checking the output schema', () => {
    const failed: CallToolResult = { content: [{ type: 'text', text: 'nope' }], isError: true };
    assert.equal(resultFromOutcome(structuredTool, { kind: 'answered', result: failed }, LIMIT), failed);
  });
});

describe('invalidArgumentsResult', () => {
  it('names each argument with its problem', () => {
    const result = invalidArgumentsResult('weather', [
      { pointer: '/city', message: 'is required' },
      { pointer: '/days', message: 'must be integer' },
    ]);
    assert.equal(result.isError, true);
    assert.equal(text(result), 'Invalid arguments for tool "weather":\n- city: is required\n- days: must be integer');
  });

  it('writes nested pointers as dotted paths, unescaping ~1 and ~0, and the root as (arguments)', () => {
    const result = invalidArgumentsResult('weather', [
      { pointer: '/items/0/id', message: 'is required' },
      { pointer: '/a~1b/c~0d', message: 'x' },
      { pointer: '/', message: 'must be object' },
    ]);
    assert.match(text(result), /- items\.0\.id: is required/);
    assert.match(text(result), /- a\/b\.c~d: x/);
    assert.match(text(result), /- \(arguments\): must be object/);
  });
});

describe('toolError', () => {
  it('is a text result flagged isError', () => {
    assert.deepEqual(toolError('bad'), { content: [{ type: 'text', text: 'bad' }], isError: true });
  });
});

describe('resultFromOutcome with a result over the size limit', () => {
  const listTool = parseToolConfig({
    toolName: 'rows',
    endpoint: '/mcp',
    inputSchema: '{"type":"object"}',
    outputSchema: '{"type":"object","properties":{"rows":{"type":"array","minItems":50}},"required":["rows"]}',
  });
  const rows = Array.from({ length: 400 }, (_, i) => ({ id: i, text: 'row '.repeat(20) }));

  it('checks the output schema against the shortened result the client would receive', () => {
    const result = resultFromOutcome(listTool, { kind: 'answered', result: { rows } }, 2_000);
    assert.equal(result.isError, true);
    assert.match(text(result), /Tool "rows" returned structured content that, once shortened to fit the result size limit, does not match its output schema/);
  });

  it('passes a shortened result that still matches its schema, with the note', () => {
    const result = resultFromOutcome(structuredTool, { kind: 'answered', result: { content: [{ type: 'text', text: 'x'.repeat(5_000) }], structuredContent: { temp: 3 } } }, 2_000);
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, { temp: 3 });
    assert.match((result.content.at(-1) as { text: string }).text, /shortened to fit the 2000-byte limit/);
  });
});

describe('isTextOnlyResult: the shortcut past the SDK schema', () => {
  const accepted: Record<string, unknown>[] = [
    { content: [] },
    { content: [{ type: 'text', text: 'hi' }] },
    { content: [{ type: 'text', text: '' }, { type: 'text', text: 'two' }], isError: false },
    { content: [{ text: 'order does not matter', type: 'text' }], isError: true },
    { isError: undefined, content: [{ type: 'text', text: 'x' }] },
  ];
  const leftToTheSchema: Record<string, unknown>[] = [
    { content: [{ type: 'text', text: 'hi' }], structuredContent: { a: 1 } },
    { content: [{ type: 'text', text: 'hi' }], _meta: { k: 1 } },
    { content: [{ type: 'text', text: 'hi', annotations: { priority: 1 } }] },
    { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] },
    { content: [{ type: 'text', text: 5 }] },
    { content: [{ type: 'text' }] },
    { content: ['hi'] },
    { content: [null] },
    { content: [{ type: 'text', text: 'hi' }], isError: 'yes' },
    { content: [{ type: 'text', text: 'hi' }], extra: true },
    { content: 'not an array' },
  ];

  it('accepts only results the SDK schema accepts too', () => {
    for (const value of accepted) {
      assert.equal(isTextOnlyResult(value), true, JSON.stringify(value));
      assert.equal(isCallToolResult(value), true, `the SDK accepts ${JSON.stringify(value)}`);
    }
  });

  it('leaves every other shape to the schema, which still decides it', () => {
    for (const value of leftToTheSchema) assert.equal(isTextOnlyResult(value), false, JSON.stringify(value));
    // Valid by the schema: still a full result (an annotated block passes through as sent).
    const annotated = { content: [{ type: 'text', text: 'hi', annotations: { priority: 1 } }] };
    assert.deepEqual(normalizeResult(plainTool, annotated), annotated);
    // Invalid by the schema: data, sent as its JSON text.
    const notResult = { content: [{ type: 'text', text: 5 }] };
    assert.deepEqual(normalizeResult(plainTool, notResult), { content: [{ type: 'text', text: JSON.stringify(notResult) }] });
  });

  it('passes a text-only result through as the same object', () => {
    const result = { content: [{ type: 'text', text: 'hi' }], isError: false };
    assert.equal(normalizeResult(plainTool, result), result);
  });
});
