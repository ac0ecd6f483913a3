// Phase `state` of `npm run bench`: what sealing and opening one 2026-07-28 requestState costs (a flow
// that asks the client pays it once per round, in each direction). Measured in this process on the
// built palette, with the questions of the conformance suite's three-request round and a small state.
import { RequestStateSealer } from '../dist/lib/input/request-state.js';

const BINDING = { endpoint: '/mcp', target: 'tool:open_garage_door', caller: 'user-1\u0000client-1' };
const ROUND = {
  round: 1,
  state: { step: 'confirm', door: 'north', openedBy: 'alice@example.com' },
  requests: {
    confirm: {
      method: 'elicitation/create',
      params: {
        message: 'Open the garage door now?',
        requestedSchema: {
          type: 'object',
          properties: { when: { type: 'string', enum: ['now', 'in 5 minutes'], default: 'now' }, confirm: { type: 'boolean', default: false } },
          required: ['confirm'],
        },
      },
    },
    greeting: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 } },
    client_roots: { method: 'roots/list', params: {} },
  },
};

/** Median microseconds per seal and per open over `batches` batches of `perBatch` operations. */
export function measureRequestState({ batches = 7, perBatch = 5_000 } = {}) {
  const sealer = new RequestStateSealer('a bench key that is long enough to be a real key', 15 * 60_000);
  const sealed = sealer.seal(ROUND, BINDING);
  const seal = [];
  const open = [];
  for (let batch = 0; batch < batches; batch++) {
    let started = process.hrtime.bigint();
    for (let i = 0; i < perBatch; i++) sealer.seal(ROUND, BINDING);
    seal.push(Number(process.hrtime.bigint() - started) / 1000 / perBatch);
    started = process.hrtime.bigint();
    for (let i = 0; i < perBatch; i++) if (!sealer.open(sealed, BINDING).ok) throw new Error('a sealed state did not open');
    open.push(Number(process.hrtime.bigint() - started) / 1000 / perBatch);
  }
  const median = (values) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)];
  return { sealUs: median(seal), openUs: median(open), bytes: sealed.length };
}
