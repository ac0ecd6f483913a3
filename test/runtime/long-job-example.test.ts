import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exampleFlow } from '../support/flows.js';
import { connect, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, type NodeRedProcess } from '../support/node-red-process.js';
import { startServing } from '../support/serving.js';
import { TaskClient } from '../support/task-client.js';

type Progress = { progress: number; total?: number; message?: string };

describe(`the long-job example flow on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;

  before(async () => {
    ({ nodeRed, url } = await startServing((port) => exampleFlow(port, 'long-job.json'), '/jobs'));
  });
  after(() => nodeRed?.stop());

  for (const era of ['legacy', 'modern'] as Era[]) {
    it(`${era}: reports progress every second, sends its log lines and answers when done`, async () => {
      const client = await connect(url, era);
      try {
        const logs: Array<{ level: string; data: unknown }> = [];
        client.setNotificationHandler('notifications/message', (notification) => {
          logs.push({ level: notification.params.level, data: notification.params.data });
        });
        if (era === 'legacy') await client.setLoggingLevel('info');
        const progress: Progress[] = [];
        const result = await client.callTool(
          { name: 'long_job', arguments: { seconds: 3 }, ...(era === 'modern' ? { _meta: { 'io.modelcontextprotocol/logLevel': 'info' } } : {}) },
          { onprogress: (report: Progress) => progress.push(report), resetTimeoutOnProgress: true },
        );
        assert.equal((result.content as Array<{ text: string }>)[0]!.text, 'Worked for 3 s.');
        assert.deepEqual(progress, [1, 2, 3].map((done) => ({ progress: done, total: 3, message: `${done} of 3 s` })));
        assert.deepEqual(logs, [
          { level: 'info', data: 'starting a 3 s job' },
          { level: 'notice', data: 'job finished' },
        ]);
      } finally {
        await client.close();
      }
    });

    it(`${era}: stops its job when the client cancels`, async () => {
      const since = nodeRed.output().length;
      const client = await connect(url, era);
      try {
        const abort = new AbortController();
        let progressed!: () => void;
        const firstProgress = new Promise<void>((resolve) => (progressed = resolve));
        const call = client.callTool({ name: 'long_job', arguments: { seconds: 30 } }, { onprogress: () => progressed(), signal: abort.signal });
        await firstProgress;
        abort.abort();
        await assert.rejects(call);
        await nodeRed.waitForOutput(new RegExp(`long_job \\w+ stopped: ${era === 'legacy' ? 'cancelled' : 'disconnected'}`), since);
      } finally {
        await client.close();
      }
    });
  }

  for (const era of ['legacy', 'modern'] as Era[]) {
    it(`${era}: long_job_task runs the same job as a task the client polls`, async () => {
      const client = await TaskClient.connect(url, era);
      try {
        const taskId = TaskClient.taskIdOf(await client.call('long_job_task', { seconds: 2 }));
        const done = await client.untilDone(taskId);
        assert.equal(done['status'], 'completed');
        if (era === 'modern') assert.equal(done['result'].content[0].text, 'Worked for 2 s.');
        else assert.equal((await client.result(taskId))['content'][0].text, 'Worked for 2 s.');
      } finally {
        await client.close();
      }
    });
  }
});
