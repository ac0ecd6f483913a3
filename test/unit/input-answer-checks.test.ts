import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answerProblem, firstAnswerProblem, unaskedAnswerProblem } from '../../lib/input/answer-checks.js';
import type { InputRequest } from '../../lib/input/input-requests.js';
import { parseInputPayload } from '../../lib/input/input-requests.js';

const FORM: InputRequest = {
  method: 'elicitation/create',
  params: {
    message: 'Open the door?',
    requestedSchema: {
      type: 'object',
      properties: {
        when: { type: 'string', enum: ['now', 'later'] },
        confirm: { type: 'boolean' },
        email: { type: 'string', format: 'email' },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
        code: { type: 'string', pattern: '^[0-9]{4}$' },
      },
      required: ['when', 'confirm'],
    },
  },
};
const SAMPLING: InputRequest = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };
const ROOTS: InputRequest = { method: 'roots/list', params: {} };

describe('answerProblem: a form answer', () => {
  it('takes accept with content that fits the form, decline and cancel without content', () => {
    for (const answer of [
      { action: 'accept', content: { when: 'now', confirm: true } },
      { action: 'accept', content: { when: 'later', confirm: false, email: 'ada@example.com', tags: ['a'], code: '1234' }, _meta: { x: 1 } },
      { action: 'decline' },
      { action: 'cancel' },
    ]) {
      assert.equal(answerProblem(FORM, answer), undefined, JSON.stringify(answer));
    }
  });

  it('refuses the bogus answer of the issue, naming what is wrong', () => {
    assert.equal(answerProblem(FORM, { action: 'bogus', content: { ok: 'yes', extra: '<img src=x onerror=alert(1)>' } }), 'action must be "accept", "decline" or "cancel"');
    assert.match(answerProblem(FORM, { action: 'accept', content: { when: 'now', confirm: true, extra: '<img>' } })!, /\/extra: is not allowed/);
  });

  it('refuses content that does not fit the form: a wrong type, a value outside the choice, a missing required field, a bad format or pattern', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ when: 'now', confirm: 'yes' }, /\/confirm: must be boolean/],
      [{ when: 'tomorrow', confirm: true }, /\/when: must be equal to one of the allowed values/],
      [{ when: 'now' }, /\/confirm: is required/],
      [{ when: 'now', confirm: true, email: 'not an email' }, /\/email: must match format "email"/],
      [{ when: 'now', confirm: true, tags: ['c'] }, /\/tags\/0/],
      [{ when: 'now', confirm: true, code: '12345' }, /\/code: must match pattern/],
    ];
    for (const [content, expected] of cases) {
      assert.match(answerProblem(FORM, { action: 'accept', content }) ?? '', expected, JSON.stringify(content));
    }
  });

  it('refuses content on a decline or cancel, an accept without content, and anything but an object', () => {
    assert.equal(answerProblem(FORM, { action: 'decline', content: { when: 'now', confirm: true } }), 'a decline carries no content');
    assert.equal(answerProblem(FORM, { action: 'cancel', content: {} }), 'a cancel carries no content');
    assert.equal(answerProblem(FORM, { action: 'accept' }), 'an accept must carry the form content as an object');
    assert.equal(answerProblem(FORM, { action: 'accept', content: ['now'] }), 'an accept must carry the form content as an object');
    for (const answer of [null, 'accept', 12345, []]) assert.equal(answerProblem(FORM, answer), 'must be an object', JSON.stringify(answer));
  });
});

describe('answerProblem: sampling and roots', () => {
  it('takes a CreateMessageResult, with one content block or several', () => {
    assert.equal(answerProblem(SAMPLING, { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm', stopReason: 'endTurn' }), undefined);
    assert.equal(answerProblem(SAMPLING, { role: 'assistant', content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }, { type: 'tool_use', id: '1', name: 't', input: {} }], model: 'm' }), undefined);
  });

  it('refuses what is not one, naming the field', () => {
    const cases: Array<[unknown, string]> = [
      [{ role: 'system', content: { type: 'text', text: 'x' }, model: 'm' }, 'role must be "user" or "assistant"'],
      [{ role: 'assistant', content: { type: 'text', text: 'x' } }, 'model must be a string'],
      [{ role: 'assistant', content: { type: 'text' }, model: 'm' }, 'content.text must be a string'],
      [{ role: 'assistant', content: [], model: 'm' }, 'content must be a content block or a non-empty array of them'],
      [{ role: 'assistant', content: [{ type: 'html', html: '<b>' }], model: 'm' }, 'content[0].type must be text, image, audio, tool_use or tool_result'],
      [{ role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm', stopReason: 3 }, 'stopReason must be a string'],
    ];
    for (const [answer, problem] of cases) assert.equal(answerProblem(SAMPLING, answer), problem, JSON.stringify(answer));
  });

  it('takes a ListRootsResult of file:// roots and refuses anything else', () => {
    assert.equal(answerProblem(ROOTS, { roots: [] }), undefined);
    assert.equal(answerProblem(ROOTS, { roots: [{ uri: 'file:///work', name: 'work' }] }), undefined);
    assert.equal(answerProblem(ROOTS, { roots: 'file:///work' }), 'roots must be an array');
    assert.equal(answerProblem(ROOTS, { roots: [{ uri: 'https://evil.example/' }] }), 'roots[0].uri must be a file:// URI');
    assert.equal(answerProblem(ROOTS, { roots: [{ uri: 'file:///a', name: 7 }] }), 'roots[0].name must be a string');
  });
});

describe('firstAnswerProblem and unaskedAnswerProblem', () => {
  it('checks only the answers to questions that were asked, and names the key of the first bad one', () => {
    const requests = { door: FORM, dirs: ROOTS };
    assert.equal(firstAnswerProblem(requests, { door: { action: 'cancel' }, unrelated: 'anything' }), undefined);
    assert.deepEqual(firstAnswerProblem(requests, { door: { action: 'cancel' }, dirs: { roots: 1 } }), { key: 'dirs', problem: 'roots must be an array' });
  });

  it('takes anything shaped like one of the three answers when nobody asked, and refuses the rest', () => {
    assert.equal(unaskedAnswerProblem({ action: 'accept', content: { anything: 1 } }), undefined);
    assert.equal(unaskedAnswerProblem({ roots: [] }), undefined);
    assert.equal(unaskedAnswerProblem({ role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }), undefined);
    assert.equal(unaskedAnswerProblem({ action: 'bogus' }), 'action must be "accept", "decline" or "cancel"');
    assert.equal(unaskedAnswerProblem(12345), 'must be an object');
    assert.match(unaskedAnswerProblem({ hello: 'world' })!, /is not an answer to any request/);
  });
});

describe('parseInputPayload: a form whose schema cannot check answers', () => {
  it('is refused when the flow asks, naming the request', () => {
    const parsed = parseInputPayload({
      executionId: 'e1',
      requests: { code: { elicitation: { message: 'Code?', requestedSchema: { type: 'object', properties: { code: { type: 'string', minLength: -1 } } } } } },
    });
    assert.equal(parsed.ok, false);
    assert.match((parsed as { problem: string }).problem, /^requests\.code: elicitation\.requestedSchema cannot check answers/);
  });
});
