import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { McpPaletteError } from '../../lib/core/errors.js';
import { checkSchemaText, parseToolConfig, type ToolConfig } from '../../lib/mcp/tool-definition.js';

const INPUT_SCHEMA = '{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}';
const OUTPUT_SCHEMA = '{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"]}';

/** A tool as the editor saves it: every field a string. */
function config(overrides: Partial<Record<keyof ToolConfig, unknown>> = {}): ToolConfig {
  return { toolName: 'get_weather', endpoint: '/mcp', inputSchema: INPUT_SCHEMA, timeout: '60', ...overrides };
}

function assertCode(fn: () => unknown, code: string, label?: string): McpPaletteError {
  let caught: unknown;
  assert.throws(fn, (error: unknown) => {
    caught = error;
    return error instanceof McpPaletteError && error.code === code;
  }, label);
  return caught as McpPaletteError;
}

describe('parseToolConfig', () => {
  it('parses an editor-saved config into name, path binding, timeout and listing', () => {
    const tool = parseToolConfig(
      config({
        title: ' Weather ',
        description: 'Current weather for a city',
        outputSchema: OUTPUT_SCHEMA,
        timeout: '30',
      }),
    );
    assert.equal(tool.name, 'get_weather');
    assert.deepEqual(tool.binding, { shared: false, path: '/mcp' });
    assert.equal(tool.timeoutMs, 30_000);
    assert.deepEqual(tool.listing, {
      name: 'get_weather',
      title: 'Weather',
      description: 'Current weather for a city',
      inputSchema: JSON.parse(INPUT_SCHEMA),
      outputSchema: JSON.parse(OUTPUT_SCHEMA),
      annotations: { title: 'Weather', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    });
    assert.deepEqual(tool.outputSchema, JSON.parse(OUTPUT_SCHEMA));
    assert.ok(Object.isFrozen(tool));
  });

  it('compiles the input and output schemas into checks', () => {
    const tool = parseToolConfig(config({ outputSchema: OUTPUT_SCHEMA }));
    assert.deepEqual(tool.checkArguments({}), [{ pointer: '/city', message: 'is required' }]);
    assert.deepEqual(tool.checkArguments({ city: 'Oslo' }), []);
    assert.deepEqual(tool.checkStructuredContent?.({ temp: 'warm' }), [{ pointer: '/temp', message: 'must be number' }]);
  });

  it('reads Run as task: never (and flows without the field) lists nothing; optional and required list execution.taskSupport', () => {
    for (const value of [undefined, '', 'never']) {
      const definition = parseToolConfig(config({ taskSupport: value }));
      assert.equal(definition.taskSupport, undefined);
      assert.equal(definition.listing.execution, undefined);
    }
    for (const value of ['optional', 'required'] as const) {
      const definition = parseToolConfig(config({ taskSupport: value }));
      assert.equal(definition.taskSupport, value);
      assert.deepEqual(definition.listing.execution, { taskSupport: value });
    }
    assertCode(() => parseToolConfig(config({ taskSupport: 'always' })), 'invalid_task_support');
  });

  it('binds endpoint "*" to every endpoint', () => {
    assert.deepEqual(parseToolConfig(config({ endpoint: '*' })).binding, { shared: true });
  });

  it('accepts an already-parsed input schema object (flows written by hand)', () => {
    assert.deepEqual(parseToolConfig(config({ inputSchema: { type: 'object' } })).listing.inputSchema, { type: 'object' });
  });

  it('defaults the timeout to 60 s when missing or blank', () => {
    assert.equal(parseToolConfig(config({ timeout: undefined })).timeoutMs, 60_000);
    assert.equal(parseToolConfig(config({ timeout: '' })).timeoutMs, 60_000);
  });

  it('accepts numeric and fractional timeouts within 1 s .. 1 day', () => {
    assert.equal(parseToolConfig(config({ timeout: 1.5 })).timeoutMs, 1_500);
    assert.equal(parseToolConfig(config({ timeout: '86400' })).timeoutMs, 86_400_000);
  });

  it('refuses timeouts of 0, non-numbers and more than a day with invalid_timeout', () => {
    for (const timeout of [0, '0', 'abc', 100_000, '-5', 0.5]) {
      assertCode(() => parseToolConfig(config({ timeout })), 'invalid_timeout', `timeout ${JSON.stringify(timeout)}`);
    }
  });

  it('defaults the maximum duration to 600 s, or to the timeout when that is longer (flows saved before the field)', () => {
    assert.equal(parseToolConfig(config({ timeout: '60' })).maxDurationMs, 600_000);
    assert.equal(parseToolConfig(config({ timeout: '60', maxDuration: '' })).maxDurationMs, 600_000);
    assert.equal(parseToolConfig(config({ timeout: '3600' })).maxDurationMs, 3_600_000);
    assert.equal(parseToolConfig(config({ timeout: '5', maxDuration: '90' })).maxDurationMs, 90_000);
    assert.equal(parseToolConfig(config({ timeout: '5', maxDuration: 5 })).maxDurationMs, 5_000);
  });

  it('refuses a maximum duration out of range or shorter than the timeout', () => {
    for (const maxDuration of [0, 'abc', 100_000, '-5']) {
      assertCode(() => parseToolConfig(config({ maxDuration })), 'invalid_max_duration', `maxDuration ${JSON.stringify(maxDuration)}`);
    }
    assertCode(() => parseToolConfig(config({ timeout: '60', maxDuration: '30' })), 'max_duration_below_timeout', 'below the timeout');
  });

  it('omits title, description and outputSchema when they are blank', () => {
    const tool = parseToolConfig(config({ title: '  ', description: '', outputSchema: '' }));
    assert.equal('title' in tool.listing, false);
    assert.equal('description' in tool.listing, false);
    assert.equal('outputSchema' in tool.listing, false);
    assert.equal(tool.outputSchema, undefined);
    assert.equal(tool.checkStructuredContent, undefined);
  });

  it('uses MCP defaults for annotations the config does not set', () => {
    assert.deepEqual(parseToolConfig(config()).listing.annotations, {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('keeps explicit annotation flags', () => {
    const annotations = parseToolConfig(config({ destructiveHint: false, idempotentHint: true, openWorldHint: false })).listing.annotations;
    assert.deepEqual(annotations, { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  });

  it('omits destructiveHint and idempotentHint for read-only tools', () => {
    const annotations = parseToolConfig(config({ readOnlyHint: true, destructiveHint: true, idempotentHint: true })).listing.annotations;
    assert.deepEqual(annotations, { readOnlyHint: true, openWorldHint: true });
  });

  it('trims the tool name and accepts the full MCP name alphabet up to 128 characters', () => {
    assert.equal(parseToolConfig(config({ toolName: '  get.weather_v2-x  ' })).name, 'get.weather_v2-x');
    assert.equal(parseToolConfig(config({ toolName: 'a'.repeat(128) })).name.length, 128);
  });

  it('refuses invalid tool names with invalid_tool_name', () => {
    for (const toolName of ['', '   ', 'has space', 'a'.repeat(129), 'ünicode', 'slash/name', undefined, 42]) {
      assertCode(() => parseToolConfig(config({ toolName })), 'invalid_tool_name', `name ${JSON.stringify(toolName)}`);
    }
  });

  it('refuses input schema text that is not JSON with invalid_input_schema and a reason mentioning JSON', () => {
    const error = assertCode(() => parseToolConfig(config({ inputSchema: '{"type": "object"' })), 'invalid_input_schema');
    assert.match(String(error.params.reason), /JSON/);
  });

  it('refuses an input schema whose root is not type object', () => {
    for (const inputSchema of ['{"type":"array"}', '{}', '[]', '"object"']) {
      assertCode(() => parseToolConfig(config({ inputSchema })), 'invalid_input_schema', inputSchema);
    }
  });

  it('refuses a missing input schema', () => {
    const error = assertCode(() => parseToolConfig(config({ inputSchema: '' })), 'invalid_input_schema');
    assert.equal(error.params.reason, 'required');
    assertCode(() => parseToolConfig(config({ inputSchema: undefined })), 'invalid_input_schema');
  });

  it('refuses an input schema that does not compile, with the problem as reason', () => {
    const error = assertCode(
      () => parseToolConfig(config({ inputSchema: '{"type":"object","properties":{"a":{"type":"objekt"}}}' })),
      'invalid_input_schema',
    );
    assert.match(String(error.params.reason), /\/properties\/a\/type/);
  });

  it('keeps the x-mcp-header declarations of the input schema for the Mcp-Param-* check, none when there are none', () => {
    const inputSchema = '{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}';
    const tool = parseToolConfig(config({ inputSchema }));
    assert.deepEqual(tool.paramHeaders, [{ path: ['region'], headerName: 'Region', headerKey: 'mcp-param-region', type: 'string' }]);
    assert.deepEqual(tool.listing.inputSchema, JSON.parse(inputSchema), 'tools/list shows the declaration to clients');
    assert.equal(parseToolConfig(config()).paramHeaders, undefined);
  });

  it('refuses an invalid x-mcp-header declaration with invalid_input_schema and the rule it breaks', () => {
    const onNumber = '{"type":"object","properties":{"price":{"type":"number","x-mcp-header":"Price"}}}';
    const error = assertCode(() => parseToolConfig(config({ inputSchema: onNumber })), 'invalid_input_schema');
    assert.match(String(error.params.reason), /^price: x-mcp-header is only permitted on string, integer or boolean properties, not number/);
    const inItems = '{"type":"object","properties":{"ids":{"type":"array","items":{"type":"string","x-mcp-header":"Id"}}}}';
    assertCode(() => parseToolConfig(config({ inputSchema: inItems })), 'invalid_input_schema');
  });

  it('refuses an invalid output schema with invalid_output_schema', () => {
    for (const outputSchema of ['{"type":"object","properties":{"a":{"type":"objekt"}}}', '{"type":"array"}', 'not json']) {
      assertCode(() => parseToolConfig(config({ outputSchema })), 'invalid_output_schema', outputSchema);
    }
  });

  it('refuses a missing endpoint with no_endpoint', () => {
    for (const endpoint of ['', '  ', undefined]) {
      assertCode(() => parseToolConfig(config({ endpoint })), 'no_endpoint', `endpoint ${JSON.stringify(endpoint)}`);
    }
  });

  it('refuses relative, reserved or malformed endpoint paths with invalid_endpoint', () => {
    for (const endpoint of ['mcp', '/oauth/x', '/oauth', '/.well-known/x', '/a//b', '/a/../b', '/with space']) {
      assertCode(() => parseToolConfig(config({ endpoint })), 'invalid_endpoint', endpoint);
    }
  });
});

describe('checkSchemaText', () => {
  it('returns no problems for a valid schema', () => {
    assert.deepEqual(checkSchemaText(INPUT_SCHEMA, 'input'), []);
    assert.deepEqual(checkSchemaText(OUTPUT_SCHEMA, 'output'), []);
  });

  it('requires an input schema but not an output schema', () => {
    assert.deepEqual(checkSchemaText('', 'input'), [{ key: 'required', params: {} }]);
    assert.deepEqual(checkSchemaText('   ', 'input'), [{ key: 'required', params: {} }]);
    assert.deepEqual(checkSchemaText('', 'output'), []);
  });

  it('returns one issue for text that is not JSON, with the parser\'s detail', () => {
    const problems = checkSchemaText('{nope', 'input');
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.key, 'notJson');
    assert.match(problems[0]!.params.detail!, /JSON/);
  });

  it('returns the root-type issue for a non-object root, and notObject for a non-object schema', () => {
    assert.deepEqual(checkSchemaText('{"type":"array"}', 'output'), [{ key: 'rootType', params: {} }]);
    assert.deepEqual(checkSchemaText('[1]', 'input'), [{ key: 'notObject', params: {} }]);
  });

  it('reports an invalid x-mcp-header declaration in an input schema, as deploy would', () => {
    const text = '{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"has space"}}}';
    assert.deepEqual(checkSchemaText(text, 'input'), [
      { key: 'paramHeader', params: { detail: 'a: x-mcp-header "has space" is not a valid HTTP header name (no spaces, control characters or delimiters)' } },
    ]);
  });

  it('says a misspelt type once, with the allowed names, not once per failed meta-schema branch', () => {
    assert.deepEqual(checkSchemaText('{"type":"object","properties":{"a":{"type":"objekt"}}}', 'input'), [
      { key: 'enum', pointer: '/properties/a/type', params: { values: '"array", "boolean", "integer", "null", "number", "object", "string"' } },
    ]);
  });

  it('gives one issue per place for several problems, each with its keyword\'s facts', () => {
    const text = '{"type":"object","required":"a","properties":{"n":{"type":"number","minimum":"5"},"s":{"type":"string","minLength":-1}}}';
    assert.deepEqual(checkSchemaText(text, 'input'), [
      { key: 'type', pointer: '/properties/n/minimum', params: { type: 'number' } },
      { key: 'atLeast', pointer: '/properties/s/minLength', params: { limit: '0' } },
      { key: 'type', pointer: '/required', params: { type: 'array' } },
    ]);
  });

  it('names an unsupported dialect and an unresolvable reference', () => {
    assert.deepEqual(checkSchemaText('{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object"}', 'input'), [
      { key: 'dialect', params: { dialect: '"https://json-schema.org/draft/2019-09/schema"' } },
    ]);
    const [issue, ...rest] = checkSchemaText('{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}', 'input');
    assert.deepEqual(rest, []);
    assert.equal(issue!.key, 'compile');
    assert.match(issue!.params.detail!, /resolve reference/);
  });
});
