import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileSchema, describeProblems } from '../../lib/mcp/json-schema.js';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

const ORDER_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    items: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
    },
  },
  required: ['city'],
  additionalProperties: false,
};

describe('compileSchema', () => {
  it('compiles a 2020-12 schema without $schema and accepts a matching value', () => {
    const check = compileSchema(ORDER_SCHEMA);
    assert.deepEqual(check({ city: 'Oslo', items: [{ id: 1 }] }), []);
  });

  it('accepts an explicit 2020-12 $schema', () => {
    const check = compileSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['a'] });
    assert.deepEqual(check({}), [{ pointer: '/a', message: 'is required' }]);
  });

  it('compiles a draft-07 schema and enforces it', () => {
    const check = compileSchema({ $schema: DRAFT_07, type: 'object', required: ['a'] });
    assert.deepEqual(check({ a: 1 }), []);
    assert.deepEqual(check({}), [{ pointer: '/a', message: 'is required' }]);
  });

  it('uses draft-07 semantics for array-form items under a draft-07 $schema', () => {
    const check = compileSchema({ $schema: DRAFT_07, type: 'array', items: [{ type: 'string' }] });
    assert.deepEqual(check(['x']), []);
    assert.deepEqual(check([1]), [{ pointer: '/0', message: 'must be string' }]);
  });

  it('reports a missing required property at its pointer', () => {
    assert.deepEqual(compileSchema(ORDER_SCHEMA)({}), [{ pointer: '/city', message: 'is required' }]);
  });

  it('reports an extra property under additionalProperties: false', () => {
    assert.deepEqual(compileSchema(ORDER_SCHEMA)({ city: 'Oslo', x: 1 }), [{ pointer: '/x', message: 'is not allowed' }]);
  });

  it('reports nested problems with the full pointer', () => {
    const check = compileSchema(ORDER_SCHEMA);
    assert.deepEqual(check({ city: 'Oslo', items: [{}] }), [{ pointer: '/items/0/id', message: 'is required' }]);
    assert.deepEqual(check({ city: 'Oslo', items: [{ id: 'x' }] }), [{ pointer: '/items/0/id', message: 'must be integer' }]);
  });

  it('reports type errors, including at the root', () => {
    const check = compileSchema(ORDER_SCHEMA);
    assert.deepEqual(check({ city: 42 }), [{ pointer: '/city', message: 'must be string' }]);
    assert.deepEqual(check('not an object'), [{ pointer: '/', message: 'must be object' }]);
  });

  it('reports every problem, not just the first', () => {
    const problems = compileSchema({ type: 'object', required: ['a', 'b'] })({});
    assert.deepEqual(problems, [
      { pointer: '/a', message: 'is required' },
      { pointer: '/b', message: 'is required' },
    ]);
  });

  it('escapes ~ and / in property names in pointers', () => {
    const problems = compileSchema({ type: 'object', required: ['a/b', 'c~d'] })({});
    assert.deepEqual(problems.map((problem) => problem.pointer), ['/a~1b', '/c~0d']);
  });

  it('checks formats', () => {
    const check = compileSchema({ type: 'object', properties: { mail: { type: 'string', format: 'email' } } });
    assert.deepEqual(check({ mail: 'a@example.com' }), []);
    assert.equal(check({ mail: 'nope' })[0]?.pointer, '/mail');
  });

  it('enforces prefixItems (a 2020-12 keyword)', () => {
    const check = compileSchema({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] });
    assert.deepEqual(check(['a', 1]), []);
    assert.deepEqual(check([1, 'a']), [
      { pointer: '/0', message: 'must be string' },
      { pointer: '/1', message: 'must be number' },
    ]);
  });

  it('throws a message naming the problem for an invalid schema', () => {
    assert.throws(() => compileSchema({ type: 'objekt' }), /\/type: must be equal to one of the allowed values/);
  });

  it('throws for a schema with an unresolvable $ref', () => {
    assert.throws(() => compileSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }), /resolve reference/);
  });

  it('throws for a schema that is not a JSON object', () => {
    for (const schema of [null, [], 'object', 42, true]) {
      assert.throws(() => compileSchema(schema), /must be a JSON object/, `schema ${JSON.stringify(schema)}`);
    }
  });

  it('throws for an unsupported $schema dialect such as 2019-09', () => {
    assert.throws(
      () => compileSchema({ $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' }),
      /unsupported \$schema/,
    );
  });

  it('compiles the same $id twice (a redeploy), using the newer schema', () => {
    const first = compileSchema({ $id: 'https://example.com/tool.json', type: 'object', required: ['a'] });
    const second = compileSchema({ $id: 'https://example.com/tool.json', type: 'object', required: ['b'] });
    assert.deepEqual(first({}), [{ pointer: '/a', message: 'is required' }]);
    assert.deepEqual(second({}), [{ pointer: '/b', message: 'is required' }]);
  });

  it('compiles a schema with a nested $id twice, in both dialects', () => {
    const nested = () => ({ type: 'object', properties: { a: { $id: 'https://example.com/nested.json', type: 'string' } } });
    compileSchema(nested());
    assert.deepEqual(compileSchema(nested())({ a: 1 }), [{ pointer: '/a', message: 'must be string' }]);
    const draft07 = () => ({ $schema: DRAFT_07, $id: 'https://example.com/d7.json', type: 'object', required: ['x'] });
    compileSchema(draft07());
    assert.deepEqual(compileSchema(draft07())({}), [{ pointer: '/x', message: 'is required' }]);
  });
});

describe('describeProblems', () => {
  it('joins pointer: message pairs with "; "', () => {
    assert.equal(
      describeProblems([
        { pointer: '/city', message: 'is required' },
        { pointer: '/', message: 'must be object' },
      ]),
      '/city: is required; /: must be object',
    );
  });

  it('returns an empty string for no problems', () => {
    assert.equal(describeProblems([]), '');
  });
});
