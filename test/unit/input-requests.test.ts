import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { elicitationSchemaProblem } from '../../lib/input/elicitation-schema.js';
import { disallowed, kindOf, parseInputPayload, requiredCapabilities, type InputAsk } from '../../lib/input/input-requests.js';

const FORM = { message: 'Which city?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const SAMPLING = { messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }], maxTokens: 100 };

function schemaWith(properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'object', properties, ...extra };
}

/** The problem parseInputPayload names for one request `value` under key `k`. */
function problemOf(value: unknown): string {
  const parsed = parseInputPayload({ executionId: 'e1', requests: { k: value } });
  assert.equal(parsed.ok, false, `accepted ${JSON.stringify(value)}`);
  return (parsed as { problem: string }).problem;
}

describe('parseInputPayload', () => {
  it('accepts each short form and turns it into the protocol method and params', () => {
    const parsed = parseInputPayload({ executionId: 'e1', requests: { city: { elicitation: FORM }, summary: { sampling: SAMPLING }, folders: { roots: {} } }, state: { step: 1 } });
    assert.deepEqual(parsed, {
      ok: true,
      executionId: 'e1',
      ask: {
        requests: {
          city: { method: 'elicitation/create', params: FORM },
          summary: { method: 'sampling/createMessage', params: SAMPLING },
          folders: { method: 'roots/list', params: {} },
        },
        state: { step: 1 },
      },
    });
  });

  it('accepts the protocol form { method, params } for each method, and roots without params', () => {
    const parsed = parseInputPayload({
      executionId: 'e1',
      requests: {
        a: { method: 'elicitation/create', params: { ...FORM, mode: 'form' } },
        b: { method: 'sampling/createMessage', params: SAMPLING },
        c: { method: 'roots/list' },
        d: { roots: null },
      },
    });
    assert.ok(parsed.ok);
    assert.deepEqual(Object.values(parsed.ask.requests).map(kindOf), ['elicitation', 'sampling', 'roots', 'roots']);
    assert.deepEqual(parsed.ask.requests['c'], { method: 'roots/list', params: {} });
    assert.equal('state' in parsed.ask, false);
  });

  it('accepts sampling content given as an array and any JSON state', () => {
    const sampling = { messages: [{ role: 'assistant', content: [{ type: 'text', text: 'x' }] }], maxTokens: 1 };
    for (const state of ['text', 0, false, [1, 2], null]) {
      assert.equal(parseInputPayload({ executionId: 'e1', requests: { s: { sampling } }, state }).ok, true, JSON.stringify(state));
    }
  });

  it('names what is wrong with the payload itself', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['text', /msg\.payload must be an object/],
      [{ requests: { k: { roots: {} } } }, /msg\.payload\.executionId/],
      [{ executionId: '', requests: { k: { roots: {} } } }, /msg\.payload\.executionId/],
      [{ executionId: 'e1' }, /msg\.payload\.requests must be an object/],
      [{ executionId: 'e1', requests: [] }, /msg\.payload\.requests must be an object/],
      [{ executionId: 'e1', requests: {} }, /msg\.payload\.requests is empty/],
      [{ executionId: 'e1', requests: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, { roots: {} }])) }, /17 requests; at most 16/],
      [{ executionId: 'e1', requests: { 'bad key': { roots: {} } } }, /request key "bad key"/],
      [{ executionId: 'e1', requests: { ['x'.repeat(65)]: { roots: {} } } }, /must be 1-64 letters/],
      [{ executionId: 'e1', requests: { k: { roots: {} } }, state: () => 1 }, /msg\.payload\.state must be JSON/],
    ];
    for (const [payload, expected] of cases) {
      const parsed = parseInputPayload(payload);
      assert.equal(parsed.ok, false, JSON.stringify(payload));
      assert.match((parsed as { problem: string }).problem, expected);
    }
  });

  it('names the request key and the field of each refused request', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['elicitation', /^requests\.k: must be an object/],
      [{}, /^requests\.k: must name exactly one of elicitation, sampling or roots/],
      [{ elicitation: FORM, roots: {} }, /must name exactly one/],
      [{ method: 'tools/call', params: {} }, /^requests\.k: unknown method "tools\/call"/],
      [{ elicitation: 'x' }, /^requests\.k: elicitation must be an object/],
      [{ elicitation: { ...FORM, mode: 'url' } }, /^requests\.k: elicitation\.mode: only form/],
      [{ elicitation: { ...FORM, message: '' } }, /^requests\.k: elicitation\.message/],
      [{ elicitation: { message: 'x' } }, /^requests\.k: elicitation\.requestedSchema must be/],
      [{ sampling: { ...SAMPLING, messages: [] } }, /^requests\.k: sampling\.messages must be a non-empty array/],
      [{ sampling: { ...SAMPLING, messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] } }, /sampling\.messages\[0\]\.role/],
      [{ sampling: { ...SAMPLING, messages: [SAMPLING.messages[0], { role: 'user', content: 'x' }] } }, /sampling\.messages\[1\]\.content/],
      [{ sampling: { messages: SAMPLING.messages } }, /sampling\.maxTokens/],
      [{ sampling: { ...SAMPLING, maxTokens: 0 } }, /sampling\.maxTokens/],
      [{ sampling: { ...SAMPLING, maxTokens: 1.5 } }, /sampling\.maxTokens/],
      [{ roots: 'all' }, /^requests\.k: roots must be an object/],
    ];
    for (const [value, expected] of cases) assert.match(problemOf(value), expected, JSON.stringify(value));
  });
});

describe('elicitationSchemaProblem', () => {
  it('accepts each primitive property, with formats and defaults', () => {
    const schema = schemaWith(
      {
        name: { type: 'string', title: 'Name', minLength: 1, default: 'Ada' },
        email: { type: 'string', format: 'email' },
        site: { type: 'string', format: 'uri' },
        day: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'date-time' },
        age: { type: 'integer', minimum: 0, default: 30 },
        ratio: { type: 'number', default: 0.5 },
        ok: { type: 'boolean', default: true },
      },
      { required: ['name', 'ok'] },
    );
    assert.equal(elicitationSchemaProblem(schema), undefined);
  });

  it('accepts the five enum forms of SEP-1330', () => {
    const forms: Record<string, unknown> = {
      untitledSingle: { type: 'string', enum: ['red', 'green'] },
      titledSingle: { type: 'string', oneOf: [{ const: 'red', title: 'Red' }, { const: 'green', title: 'Green' }] },
      legacyTitled: { type: 'string', enum: ['red', 'green'], enumNames: ['Red', 'Green'] },
      untitledMulti: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['red', 'green'] } },
      titledMulti: { type: 'array', items: { anyOf: [{ const: 'red', title: 'Red' }, { const: 'green', title: 'Green' }] } },
    };
    for (const [name, property] of Object.entries(forms)) assert.equal(elicitationSchemaProblem(schemaWith({ colour: property })), undefined, name);
    assert.equal(elicitationSchemaProblem(schemaWith(forms)), undefined);
  });

  it('accepts the defaults of SEP-1034 on every kind of field', () => {
    const schema = schemaWith({
      name: { type: 'string', default: 'Ada' },
      count: { type: 'integer', default: 3 },
      ratio: { type: 'number', default: 1.5 },
      subscribe: { type: 'boolean', default: false },
      colour: { type: 'string', enum: ['red', 'green'], default: 'green' },
      titled: { type: 'string', oneOf: [{ const: 'a', title: 'A' }], default: 'a' },
      colours: { type: 'array', items: { type: 'string', enum: ['red', 'green'] }, default: ['red'] },
      none: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] }, default: [] },
    });
    assert.equal(elicitationSchemaProblem(schema), undefined);
  });

  it('names the schema and the field of each refused form', () => {
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /^elicitation\.requestedSchema must be \{ "type": "object"/],
      [{ type: 'array', properties: { a: { type: 'string' } } }, /^elicitation\.requestedSchema must be/],
      [{ type: 'object' }, /^elicitation\.requestedSchema\.properties must name at least one field/],
      [{ type: 'object', properties: {} }, /properties must name at least one field/],
      [schemaWith({ a: 'string' }), /^elicitation\.requestedSchema\.properties\.a: must be a schema object/],
      [schemaWith({ a: { type: 'object', properties: {} } }), /properties\.a: type must be string, number, integer, boolean, or array/],
      [schemaWith({ a: { $ref: '#/x' } }), /properties\.a: type must be/],
      [schemaWith({ a: { type: 'string', format: 'ipv4' } }), /properties\.a: format must be email, uri, date or date-time/],
      [schemaWith({ a: { type: 'string', enum: [] } }), /properties\.a: enum must be a non-empty array of strings/],
      [schemaWith({ a: { type: 'string', enum: [1, 2] } }), /properties\.a: enum must be/],
      [schemaWith({ a: { type: 'string', enum: ['x', 'y'], enumNames: ['X'] } }), /properties\.a: enumNames must be strings, one for each/],
      [schemaWith({ a: { type: 'string', oneOf: [{ title: 'no const' }] } }), /properties\.a: oneOf must be/],
      [schemaWith({ a: { type: 'string', default: 1 } }), /properties\.a: its default must be a string/],
      [schemaWith({ a: { type: 'number', default: '1' } }), /properties\.a: its default must be a number/],
      [schemaWith({ a: { type: 'integer', default: true } }), /properties\.a: its default must be a number/],
      [schemaWith({ a: { type: 'boolean', default: 'yes' } }), /properties\.a: its default must be true or false/],
      [schemaWith({ a: { type: 'array', items: { type: 'number' } } }), /properties\.a: an array must be a multi-select/],
      [schemaWith({ a: { type: 'array', items: { type: 'object', properties: {} } } }), /properties\.a: an array must be a multi-select/],
      [schemaWith({ a: { type: 'array', items: { type: 'string', enum: ['x'] }, default: 'x' } }), /properties\.a: its default must be an array of strings/],
      [schemaWith({ a: { type: 'string' } }, { required: 'a' }), /^elicitation\.requestedSchema\.required must be an array of field names/],
      [schemaWith({ a: { type: 'string' } }, { required: ['a', 'b'] }), /required names "b", which is not among its properties/],
    ];
    for (const [schema, expected] of cases) assert.match(elicitationSchemaProblem(schema) ?? '(accepted)', expected, JSON.stringify(schema));
  });

  it('reports a refused schema through parseInputPayload under the request key', () => {
    assert.match(problemOf({ elicitation: { message: 'x', requestedSchema: schemaWith({ a: { type: 'object' } }) } }), /^requests\.k: elicitation\.requestedSchema\.properties\.a: type must be/);
  });
});

describe('requiredCapabilities and disallowed', () => {
  const ask: InputAsk = {
    requests: {
      city: { method: 'elicitation/create', params: FORM },
      summary: { method: 'sampling/createMessage', params: SAMPLING },
      again: { method: 'elicitation/create', params: FORM },
      folders: { method: 'roots/list', params: {} },
    },
  };

  it('names one empty capability object per kind', () => {
    assert.deepEqual(requiredCapabilities(['elicitation', 'roots']), { elicitation: {}, roots: {} });
    assert.deepEqual(requiredCapabilities([]), {});
  });

  it('lists each refused kind once and every key that asks for it', () => {
    assert.deepEqual(
      disallowed(ask, (kind) => kind === 'sampling'),
      { kinds: ['elicitation', 'roots'], keys: ['city', 'again', 'folders'] },
    );
    assert.deepEqual(disallowed(ask, () => true), { kinds: [], keys: [] });
  });
});
