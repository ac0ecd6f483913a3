// Function-node bodies of flows that report as they work (progress and log lines), shared by the
// suites that check those reports locally and through an edge hub.

/**
 * A job that reports `steps` progress steps, `intervalMs` apart, then answers; its timer is kept in
 * flow context under the executionId so the cancel branch can stop it. It also says in the log that it
 * started and whether the client sent a progress token.
 */
export const JOB = `const { executionId, arguments: args, progressToken } = msg.payload;
node.warn('job-started ' + executionId + ' token=' + progressToken);
let step = 0;
const timer = setInterval(() => {
  step += 1;
  node.send({ topic: 'mcp-tool-progress', payload: { executionId, progress: step, total: args.steps, message: 'step ' + step } });
  if (step === args.steps) {
    clearInterval(timer);
    flow.set('job-' + executionId, undefined);
    node.send({ topic: 'mcp-tool-response', payload: { executionId, result: { steps: step, progressToken } } });
  }
}, args.intervalMs);
flow.set('job-' + executionId, timer);
return null;`;

/** One line at every level, then the answer. */
export const CHATTY = `const { executionId } = msg.payload;
for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']) {
  node.send({ topic: 'mcp-tool-log', payload: { executionId, level, data: { said: level }, logger: 'chatty' } });
}
node.send({ topic: 'mcp-tool-response', payload: { executionId, result: 'said everything' } });
return null;`;
