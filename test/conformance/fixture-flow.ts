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
 *   2. when the feature is a new node type (resources, prompts), add its nodes in conformanceFlow();
 *   3. run `npm run test:conformance`: the scenario now passes and the runner says
 *      "now passes, update expected.json"; change its entry in test/conformance/expected.json to "pass"
 *      and drop its reason (and its line in the Conformance table of docs/protocol-and-limits.md).
 */
import { answer, flowServer, prompt, resource, router, runtime, tab, tool } from '../support/flows.js';
import type { FlowNode } from '../support/node-red-process.js';
import { docExample } from '../support/doc-examples.js';

export const CONFORMANCE_PATH = '/mcp';

export interface FixtureTool {
  readonly name: string;
  readonly inputSchema?: object;
  /** For the tasks scenarios: whether the tool runs as a task, and its time limit. */
  readonly taskSupport?: 'optional' | 'required';
  readonly timeout?: number;
  /** What the flow asks the client (the tool's "Asks the client"), and whether a client must be able to answer. */
  readonly asks?: string;
  readonly asksRequired?: boolean;
  readonly asksBeforeTask?: boolean;
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

/** A form elicitation asking for a name, as several scenarios spell it. */
const NAME_QUESTION = `{ elicitation: { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } }`;

/**
 * A function body that asks `requests` (a JS object literal) with mcp-tool-input and, once the answers
 * are in, runs `then` (which may call `reply_(text)`). A refusal to ask (`inputError`) ends the call
 * with a tool error that says why.
 */
function askThen(requests: string, then: string): string {
  return `const { executionId } = msg.payload;
const reply_ = (text) => ({ topic: 'mcp-tool-response', payload: { executionId, result: text } });
if (msg.payload.inputError) return { topic: 'mcp-tool-response', payload: { executionId, error: msg.payload.inputError.message } };
if (!msg.payload.inputResponses) return { topic: 'mcp-tool-input', payload: { executionId, requests: ${requests} } };
${then}`;
}

/** Asks `request` under `key` until the answer to it is in (the client may leave it out), then runs `then` with `answer`. */
function askUntil(key: string, request: string, then: string): string {
  return `const { executionId, inputResponses } = msg.payload;
const reply_ = (text) => ({ topic: 'mcp-tool-response', payload: { executionId, result: text } });
if (msg.payload.inputError) return { topic: 'mcp-tool-response', payload: { executionId, error: msg.payload.inputError.message } };
const answer = inputResponses && inputResponses[${JSON.stringify(key)}];
if (!answer || (answer.action !== undefined && answer.action !== 'accept')) return { topic: 'mcp-tool-input', payload: { executionId, requests: { ${JSON.stringify(key)}: ${request} } } };
${then}`;
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
      $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      // Composition and conditional keywords (2026-07-28 checks that they reach the client unchanged).
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
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
  {
    // A 2026-07-28 client repeats `region` in an Mcp-Param-Region header; the endpoint checks they agree.
    name: 'regional_lookup',
    inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] },
    answer: respondWith('looked up'),
  },
  {
    // One log line, which a 2026-07-28 client sees only when its request names a log level.
    name: 'test_logging_tool',
    answer: `const { executionId } = msg.payload;
node.send({ topic: 'mcp-tool-log', payload: { executionId, level: 'info', data: 'logging tool ran' } });
return { topic: 'mcp-tool-response', payload: { executionId, result: 'logged' } };`,
  },
  // The tasks extension scenarios (2026-07-28): a quick tool, and tools that run as tasks.
  { name: 'greet', inputSchema: { type: 'object', properties: { name: { type: 'string' } } }, answer: 'return { topic: "mcp-tool-response", payload: { executionId: msg.payload.executionId, result: `Hello, ${msg.payload.arguments.name}!` } };' },
  {
    // Answers after `seconds`; a cancelled task ends as cancelled whatever the flow does later.
    name: 'slow_compute',
    taskSupport: 'optional',
    timeout: 120,
    inputSchema: { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
    answer: `const { executionId, arguments: args } = msg.payload;
setTimeout(() => node.send({ topic: 'mcp-tool-response', payload: { executionId, result: 'Computed ' + (args.label || '') + ' in ' + (args.seconds || 0) + ' s' } }), (args.seconds || 0) * 1000);
return null;`,
  },
  {
    // The tool fails (a tool error): the task still completes, with an isError result.
    name: 'failing_job',
    taskSupport: 'required',
    answer: `const { executionId } = msg.payload;
setTimeout(() => node.send({ topic: 'mcp-tool-response', payload: { executionId, error: 'The job failed on purpose.' } }), 1000);
return null;`,
  },
  // Its flow never answers: the time limit ends the task as failed, with a JSON-RPC error.
  { name: 'protocol_error_job', taskSupport: 'optional', timeout: 1, answer: 'return null;' },
  // Tasks that ask: the task turns input_required and its flow goes on once tasks/update answered.
  {
    name: 'confirm_delete',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    taskSupport: 'optional',
    asks: 'elicitation',
    answer: askUntil(
      'confirm',
      `{ elicitation: { message: 'Delete ' + msg.payload.arguments.filename + '?', requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } } }`,
      'return reply_(answer.content && answer.content.confirm ? "Deleted " + msg.payload.arguments.filename : "Kept " + msg.payload.arguments.filename);',
    ),
  },
  {
    name: 'multi_input',
    taskSupport: 'optional',
    asks: 'elicitation',
    answer: `const { executionId, inputResponses } = msg.payload;
if (msg.payload.inputError) return { topic: 'mcp-tool-response', payload: { executionId, error: msg.payload.inputError.message } };
if (inputResponses && inputResponses.first && inputResponses.second) {
  return { topic: 'mcp-tool-response', payload: { executionId, result: 'Got ' + inputResponses.first.content.name + ' and ' + inputResponses.second.content.name } };
}
const question = (message) => ({ elicitation: { message, requestedSchema: { type: 'object', properties: { name: { type: 'string' }, confirm: { type: 'boolean' } } } } });
return { topic: 'mcp-tool-input', payload: { executionId, requests: { first: question('First name?'), second: question('Second name?') } } };`,
  },
  // Asks before it becomes a task: the first round is input_required, the retry with the answer starts the task.
  { name: 'test_tool_with_task', taskSupport: 'required', asks: 'elicitation', asksBeforeTask: true, answer: askUntil('user_name', NAME_QUESTION, 'return reply_("Hello, " + answer.content.name + "!");') },
  {
    name: 'test_sampling',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
    asks: 'sampling',
    answer: askThen(
      `{ answer: { sampling: { messages: [{ role: 'user', content: { type: 'text', text: msg.payload.arguments.prompt } }], maxTokens: 100 } } }`,
      'const reply = msg.payload.inputResponses.answer;\nconst text = reply.error ? "the model failed: " + reply.error.message : reply.content && reply.content.text;\nreturn reply_("LLM response: " + text);',
    ),
  },
  {
    name: 'test_elicitation',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    asks: 'elicitation',
    answer: askThen(
      `{ user: { elicitation: { message: msg.payload.arguments.message, requestedSchema: { type: 'object', properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } }, required: ['username', 'email'] } } } }`,
      'const reply = msg.payload.inputResponses.user;\nreturn reply_("User response: action=" + reply.action + ", content=" + JSON.stringify(reply.content || {}));',
    ),
  },
  {
    name: 'test_elicitation_sep1034_defaults',
    asks: 'elicitation',
    answer: askThen(
      `{ user: { elicitation: { message: 'Test client default value handling - please accept with defaults', requestedSchema: { type: 'object', properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', description: 'Verification status', default: true } } } } } }`,
      'const reply = msg.payload.inputResponses.user;\nreturn reply_("Elicitation completed: action=" + reply.action + ", content=" + JSON.stringify(reply.content || {}));',
    ),
  },
  {
    name: 'test_elicitation_sep1330_enums',
    asks: 'elicitation',
    answer: askThen(
      `{ user: { elicitation: { message: 'Choose from each kind of list', requestedSchema: { type: 'object', properties: {
        untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
        titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
        legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
        untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
        titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } } } } } } }`,
      'const reply = msg.payload.inputResponses.user;\nreturn reply_("Elicitation completed: action=" + reply.action + ", content=" + JSON.stringify(reply.content || {}));',
    ),
  },
  // Multi round-trip requests (2026-07-28): the flow asks with mcp-tool-input; the palette seals its state.
  {
    // The one fixture flow that takes a name the client sent up front, unasked (the suite's
    // ignore-extra-params sends it on a first call): it reads unaskedResponses on purpose, and checks
    // the answer itself, since nothing it asked vouches for it. Every other flow only reads inputResponses.
    name: 'test_input_required_result_elicitation',
    asks: 'elicitation',
    answer: `const { executionId, inputResponses, unaskedResponses } = msg.payload;
const reply_ = (text) => ({ topic: 'mcp-tool-response', payload: { executionId, result: text } });
if (msg.payload.inputError) return { topic: 'mcp-tool-response', payload: { executionId, error: msg.payload.inputError.message } };
const upFront = unaskedResponses && unaskedResponses.user_name;
const given = upFront && upFront.action === 'accept' && upFront.content && typeof upFront.content.name === 'string' ? upFront : undefined;
const answer = (inputResponses && inputResponses.user_name) || given;
if (!answer || answer.action !== 'accept') return { topic: 'mcp-tool-input', payload: { executionId, requests: { user_name: ${NAME_QUESTION} } } };
return reply_("Hello, " + answer.content.name + "!");`,
  },
  {
    name: 'test_input_required_result_sampling',
    asks: 'sampling',
    answer: askUntil(
      'capital_question',
      `{ sampling: { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 } }`,
      'return reply_("The model answered: " + (answer.content && answer.content.text));',
    ),
  },
  { name: 'test_input_required_result_list_roots', asks: 'roots', answer: askUntil('client_roots', '{ roots: {} }', 'return reply_("Roots: " + answer.roots.map((root) => root.uri).join(", "));') },
  {
    name: 'test_input_required_result_request_state',
    asks: 'elicitation',
    answer: `const { executionId, inputResponses, state } = msg.payload;
if (state && state.step === 'confirm' && inputResponses && inputResponses.confirm) {
  return { topic: 'mcp-tool-response', payload: { executionId, result: 'state-ok: confirmed=' + JSON.stringify(inputResponses.confirm.content || {}) } };
}
return { topic: 'mcp-tool-input', payload: { executionId, state: { step: 'confirm' }, requests: { confirm: { elicitation: { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } } } } };`,
  },
  {
    name: 'test_input_required_result_multiple_inputs',
    asks: 'elicitation,sampling,roots',
    answer: `const { executionId, inputResponses } = msg.payload;
const keys = ['user_name', 'greeting', 'client_roots'];
if (inputResponses && keys.every((key) => inputResponses[key])) {
  return { topic: 'mcp-tool-response', payload: { executionId, result: 'Got ' + keys.join(', ') } };
}
return { topic: 'mcp-tool-input', payload: { executionId, state: { asked: keys }, requests: {
  user_name: ${NAME_QUESTION},
  greeting: { sampling: { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 } },
  client_roots: { roots: {} },
} } };`,
  },
  {
    name: 'test_input_required_result_multi_round',
    asks: 'elicitation',
    answer: `const { executionId, inputResponses, state } = msg.payload;
const step = state ? state.step : 0;
if (step === 1 && inputResponses && inputResponses.step1) {
  return { topic: 'mcp-tool-input', payload: { executionId, state: { step: 2, name: inputResponses.step1.content.name }, requests: {
    step2: { elicitation: { message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } } } } } };
}
if (step === 2 && inputResponses && inputResponses.step2) {
  return { topic: 'mcp-tool-response', payload: { executionId, result: state.name + ' likes ' + inputResponses.step2.content.color } };
}
return { topic: 'mcp-tool-input', payload: { executionId, state: { step: 1 }, requests: {
  step1: { elicitation: { message: 'Step 1: What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } } } } };`,
  },
  { name: 'test_input_required_result_tampered_state', asks: 'elicitation', answer: askUntil('confirm', NAME_QUESTION, 'return reply_("Accepted");') },
  {
    // Asks only what the request's client capabilities declare.
    name: 'test_input_required_result_capabilities',
    asks: 'elicitation,sampling',
    answer: `const { executionId, inputResponses, clientCapabilities } = msg.payload;
if (inputResponses && Object.keys(inputResponses).length > 0) return { topic: 'mcp-tool-response', payload: { executionId, result: 'Answered: ' + Object.keys(inputResponses).join(', ') } };
const requests = {};
if (clientCapabilities && clientCapabilities.elicitation) requests.user_name = ${NAME_QUESTION};
if (clientCapabilities && clientCapabilities.sampling) requests.greeting = { sampling: { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 } };
if (Object.keys(requests).length === 0) return { topic: 'mcp-tool-response', payload: { executionId, result: 'This client can be asked nothing.' } };
return { topic: 'mcp-tool-input', payload: { executionId, requests } };`,
  },
  // server-stateless: a tool that must ask the client's model refuses (-32021) a client without sampling.
  { name: 'test_missing_capability', asks: 'sampling', asksRequired: true, answer: askUntil('summary', `{ sampling: { messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }], maxTokens: 50 } }`, 'return reply_("Summarised");') },
  { name: 'test_streaming_elicitation', asks: 'elicitation', answer: askUntil('user_name', NAME_QUESTION, 'return reply_("Hello, " + answer.content.name + "!");') },
];

/**
 * Resources and prompts the resources-*, prompts-* and completion-complete scenarios read, served as a
 * user would: static text and message templates set in the editor, the rest answered by one function
 * node (CONTENT_ANSWERS) on the endpoint's output next to the tool router.
 */
function contentNodes(): FlowNode[] {
  const at = (node: FlowNode, index: number): FlowNode => ({ ...node, x: 700, y: 40 + index * 40 });
  const nodes: FlowNode[] = [
    resource('resource-static-text', { uri: 'test://static-text', source: 'static', text: 'This is the content of the static text resource.' }),
    resource('resource-static-binary', { uri: 'test://static-binary', mimeType: 'image/png' }),
    resource('resource-template', { uri: 'test://template/{id}/data', mimeType: 'application/json', source: 'static', text: '{"id":"{{id}}","templateTest":true}' }),
    resource('resource-watched', { uri: 'test://watched-resource', source: 'static', text: 'Watched resource content.' }),
    prompt('prompt-simple', { name: 'test_simple_prompt', messages: [{ role: 'user', text: 'This is a simple prompt for testing.' }] }),
    prompt('prompt-arguments', {
      name: 'test_prompt_with_arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true, values: 'test, testValue1, other' },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      messages: [{ role: 'user', text: "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'" }],
    }),
    prompt('prompt-embedded', { name: 'test_prompt_with_embedded_resource', source: 'flow', arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }] }),
    prompt('prompt-image', { name: 'test_prompt_with_image', source: 'flow' }),
    prompt('prompt-asks', { name: 'test_input_required_result_prompt', source: 'flow' }),
  ];
  return [...nodes.map(at), { ...answer(CONTENT_ANSWERS, CONTENT_ANSWER_BODY, 'conformance-server'), name: 'resources and prompts', x: 400, y: 500 }];
}

const CONTENT_ANSWERS = 'answer-content';
const CONTENT_ANSWER_BODY = `const { executionId } = msg.payload;
if (msg.topic === 'mcp-resource-read') {
  return { topic: 'mcp-resource-response', payload: { executionId, contents: [{ blob: ${JSON.stringify(PNG_BASE64)}, mimeType: 'image/png' }] } };
}
if (msg.topic !== 'mcp-prompt-get') return null;
if (msg.payload.name === 'test_input_required_result_prompt') {
  // A prompt that asks the user for its context first: the example of docs/resources-prompts.md, verbatim.
  return (() => {
${docExample('prompt-that-asks')}
  })();
}
const messages = msg.payload.name === 'test_prompt_with_image'
  ? [{ role: 'user', content: { type: 'image', data: ${JSON.stringify(PNG_BASE64)}, mimeType: 'image/png' } }, { role: 'user', content: 'Please analyze the image above.' }]
  : [{ role: 'user', content: { type: 'resource', resource: { uri: msg.payload.arguments.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
     { role: 'user', content: 'Please process the embedded resource above.' }];
return { topic: 'mcp-prompt-response', payload: { executionId, messages } };`;

/** The fixture: a runtime on `port` (loopback) with one endpoint at /mcp serving every FIXTURE_TOOLS entry. */
export function conformanceFlow(port: number): FlowNode[] {
  const answerId = (name: string) => `answer-${name}`;
  const routes = Object.fromEntries(FIXTURE_TOOLS.map((fixture) => [fixture.name, answerId(fixture.name)]));
  const nodes: FlowNode[] = [
    tab(),
    runtime('conformance-runtime', port),
    flowServer('conformance-server', { runtime: 'conformance-runtime', path: CONFORMANCE_PATH, serverName: 'conformance-fixture', wires: ['route', CONTENT_ANSWERS] }),
    router('route', routes),
  ];
  FIXTURE_TOOLS.forEach((fixture, index) => {
    const options = {
      name: fixture.name,
      endpoint: CONFORMANCE_PATH,
      input: fixture.inputSchema,
      ...(fixture.taskSupport ? { taskSupport: fixture.taskSupport } : {}),
      ...(fixture.timeout ? { timeout: fixture.timeout } : {}),
    };
    const asks = fixture.asks ? { asks: fixture.asks, asksRequired: fixture.asksRequired ?? false, asksBeforeTask: fixture.asksBeforeTask ?? false } : {};
    nodes.push({ ...tool(`tool-${fixture.name}`, options), ...asks, y: 40 + index * 40 });
    nodes.push({ ...answer(answerId(fixture.name), fixture.answer, 'conformance-server'), name: fixture.name, x: 400, y: 40 + index * 40 });
  });
  return [...nodes, ...contentNodes()];
}
