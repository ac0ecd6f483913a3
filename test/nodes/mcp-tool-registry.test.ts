import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { flowOf, flowServerDef, freePort, helper, lastStatus, usePalette, messagesOf, rpc, runtimeDef, toolDef, waitForStatus } from './node-helper.js';

describe('mcp-tool-registry', () => {
  const nodes = usePalette();

  it('shows a green status naming the tool and its endpoint', async () => {
    await helper.load(nodes, flowOf(toolDef('tool', 'get_weather')));
    const tool = helper.getNode('tool');
    assert.deepEqual(lastStatus(tool), { fill: 'green', shape: 'dot', text: 'get_weather on /mcp' });
    assert.deepEqual(messagesOf(tool, 'error'), []);
  });

  it('says "all endpoints" for a Shared tool', async () => {
    await helper.load(nodes, flowOf(toolDef('tool', 'lookup', { endpoint: '*' })));
    assert.deepEqual(lastStatus(helper.getNode('tool')), { fill: 'green', shape: 'dot', text: 'lookup on all endpoints' });
  });

  it('refuses input schema text that is not JSON: red ring and an error', async () => {
    await helper.load(nodes, flowOf(toolDef('tool', 'broken', { inputSchema: '{"type": "object",' })));
    const tool = helper.getNode('tool');
    const status = lastStatus(tool);
    assert.equal(status?.fill, 'red');
    assert.equal(status?.shape, 'ring');
    assert.match(status?.text ?? '', /^Input schema: The text is not valid JSON: .+\.$/);
    const errors = messagesOf(tool, 'error');
    assert.equal(errors.length, 1);
    assert.equal(errors[0], status?.text, 'the log says what the status says');
  });

  it('refuses an input schema whose root is not an object schema', async () => {
    await helper.load(nodes, flowOf(toolDef('tool', 'broken', { inputSchema: '{"type":"array"}' })));
    const tool = helper.getNode('tool');
    const text = 'Input schema: The schema root must have "type": "object": MCP tools take and return objects.';
    assert.deepEqual(lastStatus(tool), { fill: 'red', shape: 'ring', text });
    assert.deepEqual(messagesOf(tool, 'error'), [text]);
  });

  it('refuses an invalid x-mcp-header declaration: red ring and an error naming the rule', async () => {
    const inputSchema = JSON.stringify({ type: 'object', properties: { price: { type: 'number', 'x-mcp-header': 'Price' } } });
    await helper.load(nodes, flowOf(toolDef('tool', 'priced', { inputSchema })));
    const tool = helper.getNode('tool');
    const text = 'Input schema: An x-mcp-header declaration is not allowed: price: x-mcp-header is only permitted on string, integer or boolean properties, not number.';
    assert.deepEqual(lastStatus(tool), { fill: 'red', shape: 'ring', text });
    assert.deepEqual(messagesOf(tool, 'error'), [text]);
  });

  it('refuses an output schema that JSON Schema rejects', async () => {
    await helper.load(nodes, flowOf(
      toolDef('tool', 'broken', { outputSchema: '{"type":"object","properties":{"n":{"type":"numbr"}}}' }),
    ));
    const status = lastStatus(helper.getNode('tool'));
    assert.equal(status?.fill, 'red');
    // One sentence for the misspelt type, not one line per meta-schema branch it failed.
    assert.equal(
      status?.text,
      'Output schema: "properties.n.type" must be one of "array", "boolean", "integer", "null", "number", "object", "string".',
    );
  });

  it('refuses an invalid tool name', async () => {
    await helper.load(nodes, flowOf(toolDef('tool', 'has spaces')));
    assert.deepEqual(lastStatus(helper.getNode('tool')), {
      fill: 'red',
      shape: 'ring',
      text: 'Tool name must be 1-128 characters: letters, digits, _ - and .',
    });
  });

  it('refuses an "Asks the client" naming something a flow cannot ask for, in the catalog words', async () => {
    await helper.load(nodes, flowOf(toolDef('tool', 'asker', { asks: 'elicitation,telepathy' })));
    const text = '"Asks the client" may name only elicitation, sampling and roots, not telepathy';
    assert.deepEqual(lastStatus(helper.getNode('tool')), { fill: 'red', shape: 'ring', text });
    assert.deepEqual(messagesOf(helper.getNode('tool'), 'error'), [text]);
  });

  it('refuses a second tool of the same name on the same path, and the endpoint serves the first', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(
      runtimeDef('rt', port),
      flowServerDef('srv', 'rt'),
      toolDef('first', 'echo', { description: 'the first echo' }),
      toolDef('second', 'echo', { description: 'the second echo' }),
    ));
    assert.deepEqual(lastStatus(helper.getNode('first')), { fill: 'green', shape: 'dot', text: 'echo on /mcp' });
    const second = helper.getNode('second');
    const status = lastStatus(second);
    assert.equal(status?.fill, 'red');
    assert.equal(status?.shape, 'ring');
    assert.match(status?.text ?? '', /Tool echo is already declared for \/mcp by node first/);
    assert.equal(messagesOf(second, 'error').length, 1);

    await waitForStatus(helper.getNode('srv'), 'green');
    const listed = await rpc(port, 'tools/list');
    assert.deepEqual(
      listed.body.result.tools.map((tool: { name: string; description: string }) => [tool.name, tool.description]),
      [['echo', 'the first echo']],
    );
  });

  it('refuses a Shared tool whose name is already declared on a path', async () => {
    await helper.load(nodes, flowOf(toolDef('onPath', 'echo'), toolDef('shared', 'echo', { endpoint: '*' })));
    assert.equal(lastStatus(helper.getNode('onPath'))?.fill, 'green');
    assert.match(lastStatus(helper.getNode('shared'))?.text ?? '', /Tool echo is already declared for all endpoints by node onPath/);
  });

  it('allows the same tool name on different paths', async () => {
    await helper.load(nodes, flowOf(toolDef('a', 'echo', { endpoint: '/a' }), toolDef('b', 'echo', { endpoint: '/b' })));
    assert.deepEqual(lastStatus(helper.getNode('a')), { fill: 'green', shape: 'dot', text: 'echo on /a' });
    assert.deepEqual(lastStatus(helper.getNode('b')), { fill: 'green', shape: 'dot', text: 'echo on /b' });
  });

  it('frees the tool name when the flow is unloaded', async () => {
    await helper.load(nodes, flowOf(toolDef('first', 'echo')));
    await helper.unload();
    await helper.load(nodes, flowOf(toolDef('other', 'echo')));
    assert.equal(lastStatus(helper.getNode('other'))?.fill, 'green');
  });

  describe('POST /mcp-tool-registry/validate-schema', () => {
    beforeEach(() => helper.load(nodes, flowOf(toolDef('tool', 'echo'))));
    /** The editor's inline check of one schema text. */
    const validate = (schema: unknown, kind: 'input' | 'output' = 'input') =>
      helper.request().post('/mcp-tool-registry/validate-schema').send({ schema, kind });

    it('accepts a valid schema', async () => {
      const response = await validate('{"type":"object"}');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { valid: true, issues: [] });
    });

    it('rejects a root that is not "type": "object"', async () => {
      const response = await validate('{"type":"objekt"}');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { valid: false, issues: [{ key: 'rootType', params: {} }] });
    });

    it('rejects a schema that JSON Schema itself refuses', async () => {
      const response = await validate('{"type":"object","properties":{"a":{"type":"strin"}}}');
      assert.equal(response.status, 200);
      assert.equal(response.body.valid, false);
      assert.deepEqual(response.body.issues, [
        { key: 'enum', pointer: '/properties/a/type', params: { values: '"array", "boolean", "integer", "null", "number", "object", "string"' } },
      ]);
    });

    it('treats an empty output schema as valid and an empty input schema as missing', async () => {
      const output = await validate('', 'output');
      assert.deepEqual(output.body, { valid: true, issues: [] });
      const input = await validate('');
      assert.deepEqual(input.body, { valid: false, issues: [{ key: 'required', params: {} }] });
    });

    it('answers 400 when the schema is not a string', async () => {
      const response = await validate({ type: 'object' });
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { valid: false, issues: [{ key: 'tooLarge', params: {} }] });
    });
  });
});
