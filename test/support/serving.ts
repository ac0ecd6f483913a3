import { waitForEndpoint } from './mcp-http.js';
import { startNodeRed, type FlowNode, type NodeRedProcess, type StartOptions } from './node-red-process.js';
import { freePort } from './ports.js';

/** A Node-RED whose flows serve an MCP endpoint, started and answering. */
export interface ServingNodeRed {
  readonly nodeRed: NodeRedProcess;
  /** The endpoint at the path asked for, on the port the flows were given. */
  readonly url: string;
}

/**
 * Starts Node-RED with `flows(port)` for a free port and waits until the endpoint at `path` answers
 * (endpoints start just after "Started flows"). What most runtime suites do in their `before`.
 */
export async function startServing(flows: (port: number) => FlowNode[], path: string, options?: StartOptions): Promise<ServingNodeRed> {
  const port = await freePort();
  const nodeRed = await startNodeRed(flows(port), options);
  const url = `http://127.0.0.1:${port}${path}`;
  await waitForEndpoint(url);
  return { nodeRed, url };
}
