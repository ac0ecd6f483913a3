/**
 * The flow the official MCP conformance suite is run against (`npm run test:conformance`).
 *
 * Each server scenario of `@modelcontextprotocol/conformance` calls tools, resources or prompts with
 * fixed names (`test_simple_text`, `test_image_content`, ...) and checks what comes back. This flow
 * serves them the way a user would: one `mcp-flow-server`, one `mcp-tool-registry` node per tool, a
 * switch node routing each `mcp-tool-execute` message by tool name to a function node that answers
 * with an `mcp-tool-response`.
 *
 * To serve a scenario that a new feature makes possible:
 *   1. add an entry to FIXTURE_TOOLS below: the tool name the scenario calls (read it in the suite's
 *      source, src/scenarios/server/*.ts, or in `conformance list --server` plus the scenario's
 *      description), its input schema, and the body of the function node that answers it (`msg` is the
 *      execute message; return the message(s) to send back into the flow server, as in any function node);
 *      for a placeholder, change its body to use the new feature;
 *   2. when the feature is a new node type (resources, prompts), add its nodes in conformanceFlow();
 *   3. run `npm run test:conformance`: the scenario now passes and the runner says
 *      "now passes, update expected.json"; change its entry in test/conformance/expected.json to "pass"
 *      and drop its reason (and the README's Conformance table line).
 */
import { answer, flowServer, router, runtime, tab, tool } from '../support/flows.js';
import type { FlowNode } from '../support/node-red-process.js';

export const CONFORMANCE_PATH = '/mcp';

export interface FixtureTool {
  readonly name: string;
  readonly inputSchema?: object;
  /** Body of the function node answering the call. */
  readonly answer: string;
}

/** A 1x1 red PNG and a WAV header with no samples: the smallest valid media the scenarios accept. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV_BASE64 = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

/** A function body answering with `result` (any value the message contract accepts). */
function respondWith(result: unknown): string {
  return `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: ${JSON.stringify(result)} };\nreturn msg;`;
}

/** A tool whose scenario needs a feature the palette does not have yet: it answers, but without the feature. */
function placeholder(issue: number, feature: string): string {
  return respondWith(`This flow cannot ${feature} yet (issue ${issue}).`);
}

export const FIXTURE_TOOLS: readonly FixtureTool[] = [
  { name: 'test_simple_text', answer: respondWith('This is a simple text response for testing.') },
  { name: 'test_image_content', answer: respondWith({ content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }] }) },
  { name: 'test_audio_content', answer: respondWith({ content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }] }) },
  {
    name: 'test_embedded_resource',
    answer: respondWith({
      content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
    }),
  },
  {
    name: 'test_multiple_content_types',
    answer: respondWith({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
      ],
    }),
  },
  {
    // A flow reports a failure with `error`; the client gets an isError result.
    name: 'test_error_handling',
    answer: `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, error: 'This tool intentionally returns an error for testing' };\nreturn msg;`,
  },
  {
    name: 'json_schema_2020_12_tool',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
    answer: respondWith('ok'),
  },
  {
    // Three info lines about 50 ms apart through mcp-tool-log, then the answer.
    name: 'test_tool_with_logging',
    answer: `const { executionId } = msg.payload;
const log = (data) => node.send({ topic: 'mcp-tool-log', payload: { executionId, level: 'info', data } });
log('Tool execution started');
setTimeout(() => {
  log('Tool processing data');
  setTimeout(() => {
    log('Tool execution completed');
    node.send({ topic: 'mcp-tool-response', payload: { executionId, result: 'Tool with logging executed successfully' } });
  }, 50);
}, 50);
return null;`,
  },
  {
    // 0, 50 and 100 of 100 about 50 ms apart through mcp-tool-progress, then the answer.
    name: 'test_tool_with_progress',
    answer: `const { executionId } = msg.payload;
const report = (progress) => node.send({ topic: 'mcp-tool-progress', payload: { executionId, progress, total: 100 } });
report(0);
setTimeout(() => {
  report(50);
  setTimeout(() => {
    report(100);
    node.send({ topic: 'mcp-tool-response', payload: { executionId, result: 'Tool with progress executed successfully' } });
  }, 50);
}, 50);
return null;`,
  },
  // Placeholders: the scenario fails today for the reason in test/conformance/expected.json.
  { name: 'test_sampling', inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] }, answer: placeholder(11, "ask the client's model") },
  { name: 'test_elicitation', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] }, answer: placeholder(11, 'ask the user') },
  { name: 'test_elicitation_sep1034_defaults', answer: placeholder(11, 'ask the user') },
  { name: 'test_elicitation_sep1330_enums', answer: placeholder(11, 'ask the user') },
];

/** The fixture: a runtime on `port` (loopback) with one endpoint at /mcp serving every FIXTURE_TOOLS entry. */
export function conformanceFlow(port: number): FlowNode[] {
  const answerId = (name: string) => `answer-${name}`;
  const routes = Object.fromEntries(FIXTURE_TOOLS.map((fixture) => [fixture.name, answerId(fixture.name)]));
  const nodes: FlowNode[] = [
    tab(),
    runtime('conformance-runtime', port),
    flowServer('conformance-server', { runtime: 'conformance-runtime', path: CONFORMANCE_PATH, serverName: 'conformance-fixture', wires: ['route'] }),
    router('route', routes),
  ];
  FIXTURE_TOOLS.forEach((fixture, index) => {
    nodes.push({ ...tool(`tool-${fixture.name}`, { name: fixture.name, endpoint: CONFORMANCE_PATH, input: fixture.inputSchema }), y: 40 + index * 40 });
    nodes.push({ ...answer(answerId(fixture.name), fixture.answer, 'conformance-server'), name: fixture.name, x: 400, y: 40 + index * 40 });
  });
  return nodes;
}
