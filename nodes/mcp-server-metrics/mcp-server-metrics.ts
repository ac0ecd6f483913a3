import type { Node, NodeAPI, NodeDef } from 'node-red';
import { telemetryReport } from '../../lib/telemetry/telemetry-report.js';
import type { McpRuntimeNode } from '../mcp-runtime/mcp-runtime.js';

interface McpServerMetricsDef extends NodeDef {
  runtime?: string;
  /** `all`: resource reads, prompts and completions too. Missing (nodes saved before it existed): tool calls only. */
  report?: string;
}

export default function (RED: NodeAPI) {
  function McpServerMetrics(this: Node, config: McpServerMetricsDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const runtimeNode = RED.nodes.getNode(config.runtime ?? '') as McpRuntimeNode | null;
    const bus = runtimeNode?.telemetry;
    if (!runtimeNode || !bus) {
      node.status({ fill: 'red', shape: 'ring', text: RED._('mcp-server-metrics.errors.noRuntime') });
      node.error(RED._('mcp-server-metrics.errors.noRuntime'));
      return;
    }
    // The topic names the kind: mcp-tool-telemetry, mcp-resource-telemetry, mcp-prompt-telemetry, mcp-completion-telemetry.
    const claimed = bus.subscribe(node.id, (payload) => node.send({ topic: `mcp-${payload.kind}-telemetry`, payload }), telemetryReport(config.report));
    if (!claimed) {
      node.status({ fill: 'red', shape: 'ring', text: RED._('mcp-server-metrics.errors.secondNode') });
      node.error(RED._('mcp-server-metrics.errors.secondNode'));
      return;
    }
    node.status({ fill: 'green', shape: 'dot', text: RED._('mcp-server-metrics.status.listening') });
    node.on('close', (_removed: boolean, done: () => void) => {
      bus.unsubscribe(node.id);
      done();
    });
  }
  RED.nodes.registerType('mcp-server-metrics', McpServerMetrics);
}
