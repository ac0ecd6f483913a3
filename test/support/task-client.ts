import { z } from 'zod';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { parseBody, type Era } from './mcp-http.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Any result, as the server sent it: task results are not shapes the client knows by name. */
const anyResult = z.looseObject({});

/**
 * The official client as a task-aware caller: on 2026-07-28 it declares the tasks extension (sent
 * with every request), on 2025-11-25 it asks for a task with the `task` parameter.
 */
export class TaskClient {
  private constructor(
    readonly client: Client,
    readonly era: Era,
    private readonly lastToolsCallResult: () => Record<string, any> | undefined,
  ) {}

  /**
   * `capabilities`: what else the client declares (on 2026-07-28 sent with every request), e.g.
   * elicitation; `token`: an access token sent as a bearer token with every request (OAuth endpoints).
   */
  static async connect(url: string, era: Era, options: { declareExtension?: boolean; capabilities?: Record<string, unknown>; token?: string } = {}): Promise<TaskClient> {
    const declare = options.declareExtension ?? true;
    const extra = options.capabilities ?? {};
    const client = new Client(
      { name: 'task-test', version: '1.0.0' },
      {
        versionNegotiation: { mode: era === 'legacy' ? 'legacy' : 'auto' },
        capabilities: (era === 'modern' && declare ? { ...extra, extensions: { [TASKS_EXTENSION]: {} } } : extra) as never,
      },
    );
    // The official client (2.4) has no tasks extension yet: it refuses a `resultType: "task"` answer to
    // tools/call after receiving it. Its own transport's fetch keeps the last tools/call answer, so the
    // test reads exactly what the client received.
    let last: Record<string, any> | undefined;
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (typeof init?.body === 'string' && init.body.includes('"method":"tools/call"')) {
        last = (parseBody(await response.clone().text()) as { result?: Record<string, any> } | undefined)?.result;
      }
      return response;
    };
    const requestInit = options.token ? { requestInit: { headers: { authorization: `Bearer ${options.token}` } } } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: recording, ...requestInit }));
    return new TaskClient(client, era, () => last);
  }

  /** tools/call, asking for a task on 2025-11-25 (on 2026-07-28 the server decides). */
  async call(name: string, args: Record<string, unknown>, askForTask = true): Promise<Record<string, any>> {
    const params = { name, arguments: args, ...(this.era === 'legacy' && askForTask ? { task: { ttl: 60_000 } } : {}) };
    try {
      return await this.client.request({ method: 'tools/call', params } as never, anyResult);
    } catch (error) {
      const refused = error as { code?: unknown; data?: { resultType?: unknown } };
      const received = this.lastToolsCallResult();
      if (refused.code === 'UNSUPPORTED_RESULT_TYPE' && refused.data?.resultType === 'task' && received?.['resultType'] === 'task') return received;
      throw error;
    }
  }

  /** The task id of a tools/call answer in either era's shape. */
  static taskIdOf(answer: Record<string, any>): string {
    const id = answer['taskId'] ?? answer['task']?.taskId;
    if (typeof id !== 'string') throw new Error(`not a task: ${JSON.stringify(answer)}`);
    return id;
  }

  get(taskId: string): Promise<Record<string, any>> {
    return this.client.request({ method: 'tasks/get', params: { taskId } } as never, anyResult);
  }

  /** 2026-07-28 `tasks/update`: answers to what an `input_required` task asked, keyed as it asked. */
  update(taskId: string, inputResponses: Record<string, unknown>): Promise<Record<string, any>> {
    return this.client.request({ method: 'tasks/update', params: { taskId, inputResponses } } as never, anyResult);
  }

  cancel(taskId: string): Promise<Record<string, any>> {
    return this.client.request({ method: 'tasks/cancel', params: { taskId } } as never, anyResult);
  }

  result(taskId: string): Promise<Record<string, any>> {
    return this.client.request({ method: 'tasks/result', params: { taskId } } as never, anyResult);
  }

  list(cursor?: string): Promise<Record<string, any>> {
    return this.client.request({ method: 'tasks/list', params: cursor ? { cursor } : {} } as never, anyResult);
  }

  /** Polls tasks/get until the task is terminal (or `timeoutMs` passes). */
  async untilDone(taskId: string, timeoutMs = 20_000): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const task = await this.get(taskId);
      if (['completed', 'failed', 'cancelled'].includes(task['status'])) return task;
      if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task['status']} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
