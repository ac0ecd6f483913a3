import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { loggerOf, logWithoutStack } from '../../lib/core/logger.js';
import { rateLimitedLog } from '../../lib/core/rate-limited-log.js';
import { parseFlowServerConfig } from '../../lib/config/flow-server-config.js';
import { McpPaletteError, catalogKey } from '../../lib/core/errors.js';
import { contentAudit, formatAuditLine, toolCallAudit, type AuditEvent } from '../../lib/auth/audit.js';
import { authRegistry } from '../../lib/auth/bridge/auth-registry.js';
import { EndpointController, type EndpointState } from '../../lib/mcp/endpoint-controller.js';
import { toolRegistry } from '../../lib/mcp/tool-registry.js';
import { contentRegistry } from '../../lib/mcp/content/content-registry.js';
import { answerFrom, cancelMessage, isAnswerTopic, requestMessage } from '../../lib/mcp/content/content-messages.js';
import { contentTelemetry } from '../../lib/telemetry/content-telemetry.js';
import type { ToolDefinition } from '../../lib/mcp/tool-definition.js';
import { createGetFlowTool } from '../../lib/admin/get-flow-tool.js';
import { toolTelemetry } from '../../lib/telemetry/tool-telemetry.js';
import { recentCalls } from '../../lib/telemetry/recent-calls.js';
import { LogThrottle } from '../../lib/core/log-throttle.js';
import { parseLogPayload, parseProgressPayload } from '../../lib/mcp/flow-reports.js';
import { parseInputPayload } from '../../lib/input/input-requests.js';
import { toolCancelMessage, toolExecuteMessage } from '../../lib/mcp/calls/call-messages.js';
import type { Store, StorePrimary } from '../../lib/storage/store.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { DEFAULTS } from '../../lib/core/defaults.js';
import type { McpRedisNode } from '../mcp-redis/mcp-redis.js';
import type { McpAuthNode } from '../mcp-auth/mcp-auth.js';
import type { McpRuntimeNode } from '../mcp-runtime/mcp-runtime.js';
import { sidebarEntry, registerSidebarRoutes } from './sidebar-routes.js';
import { endpointDirectory } from '../../lib/editor/endpoint-directory.js';

interface McpFlowServerDef extends NodeDef {
  serverName?: string;
  path?: string;
  runtime?: string;
  access?: string;
  auth?: string;
  groups?: string;
  maxConcurrent?: string | number;
  /** mcp-redis node for task records; on OAuth endpoints the sign-in storage when unset. */
  storage?: string;
  maxStreams?: string | number;
}

interface ResponseMessage extends NodeMessage {
  payload?: { executionId?: unknown; result?: unknown; contents?: unknown; messages?: unknown; error?: unknown; uri?: unknown };
}

/** Task records of endpoints without a storage node: this process alone, until it restarts. */
let processTaskStore: MemoryStore | undefined;

export default function (RED: NodeAPI) {
  // get_flow caches its tab index until the next deploy; this counts deploys for the whole process.
  let deployGeneration = 0;
  RED.events.on('flows:started', () => {
    deployGeneration += 1;
  });
  registerSidebarRoutes(RED);
  const adminRoot = () => String((RED.settings as { httpAdminRoot?: unknown }).httpAdminRoot ?? '/').replace(/\/+$/, '');
  const adminTools = (runtimeNode: McpRuntimeNode, path: string): ToolDefinition[] => {
    const admin = runtimeNode.admin;
    if (!admin || admin.endpointPath !== path) return [];
    return [
      createGetFlowTool({
        // The admin API lives under httpAdminRoot when Node-RED is configured with one.
        adminBaseUrl: `http://127.0.0.1:${admin.port}${adminRoot()}`,
        token: admin.token,
        eachNode: (visit) => RED.nodes.eachNode((config) => visit(config as unknown as Record<string, unknown>)),
        deployGeneration: () => deployGeneration,
      }),
    ];
  };

  function McpFlowServer(this: Node, config: McpFlowServerDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const t = (key: string, params: Record<string, string | number> = {}) => RED._(`mcp-flow-server.${key}`, params);
    // The sidebar shows the last failure; it stays after a recovery until the next deploy.
    let lastError: { message: string; at: number } | undefined;
    const fail = (reason: string) => {
      lastError = { message: reason, at: Date.now() };
      node.status({ fill: 'red', shape: 'ring', text: t('status.failed', { reason }) });
      node.error(reason);
    };
    const describe = (error: McpPaletteError) => t(`errors.${catalogKey(error.code)}`, { ...error.params });
    const audit = (event: AuditEvent) => logWithoutStack(node, formatAuditLine(event));
    // A client that hangs up leaves the flow's answer with nobody waiting: one line per minute, with a
    // count, however many clients do it.
    const requestLog = rateLimitedLog(loggerOf(node), {
      summary: (kind, count, seconds) => t(`log.repeated.${kind}`, { count, seconds }),
    });
    // A progress loop that outlives its call would otherwise write a warning per message: one per call.
    const throttle = new LogThrottle();
    const warnThrottled = (kind: string, key: string, params: { executionId: string } & Record<string, string | number>) => {
      const held = throttle.admit(`${kind} ${params.executionId}`);
      if (held === undefined) return;
      node.warn(t(`errors.${key}`, params) + (held > 0 ? ` ${t('errors.heldBack', { count: held })}` : ''));
    };

    // Logged once per change, so the log shows where each endpoint serves without repeating it.
    let lastServing = '';
    // Sign-in storage (Redis) can drop while the endpoint serves: the status says so until it is back.
    let storage: Store | undefined;
    let runtimeNode: McpRuntimeNode | null = null;
    let authNode: McpAuthNode | null = null;
    const controller = createController();
    const directoryEntry = sidebarEntry({
      node: node as Node & { z?: string },
      config,
      controller,
      runtime: () => runtimeNode,
      auth: () => authNode,
      lastError: () => lastError,
    });
    endpointDirectory.register(directoryEntry);
    // Only a serving endpoint's status shows storage; a failed one keeps its own (and logs it once).
    // A Cluster's failover can pass without the connection's state changing: its primaries redraw too.
    const redrawServing = () => {
      if (controller?.state.state === 'serving') showState(controller.state);
    };
    const stopWatchingStorage = storage?.onState(redrawServing);
    const stopWatchingPrimary = storage?.onPrimary?.(redrawServing);
    // Commands wait for a deploy to finish, so the catalog sees every tool of this deploy.
    let stoppedByCommand = false;
    const onFlowsStarted = () => {
      if (controller && !stoppedByCommand) void controller.start();
    };
    RED.events.on('flows:started', onFlowsStarted);

    node.on('input', (message: NodeMessage, _send: unknown, done: (error?: Error) => void) => {
      const msg = message as ResponseMessage;
      if (!controller) return done();
      switch (msg.topic) {
        case 'mcp-tool-response':
        case 'mcp-resource-response':
        case 'mcp-prompt-response':
        case 'mcp-completion-response': {
          const executionId = msg.payload?.executionId;
          if (typeof executionId !== 'string') return done(new Error(t('errors.badResponse', { topic: msg.topic })));
          // Each answer carries its own field; the broker hands it to whichever request waits.
          const result = isAnswerTopic(msg.topic) ? answerFrom(msg.topic, msg.payload as Record<string, unknown>) : msg.payload?.result;
          if (controller.settle(executionId, { result, error: msg.payload?.error }) === 'unknown') {
            requestLog.warn('unknownExecution', t('errors.unknownExecution', { executionId }));
          }
          return done();
        }
        case 'mcp-tool-progress': {
          const parsed = parseProgressPayload(msg.payload);
          if (!parsed.ok) return done(new Error(t('errors.badProgress', { field: parsed.field })));
          const delivery = controller.progress(parsed.executionId, parsed.value);
          if (delivery === 'unknown') warnThrottled('progress-unknown', 'unknownProgress', { executionId: parsed.executionId });
          else if (delivery === 'not_increasing') warnThrottled('progress-backwards', 'progressNotIncreasing', { executionId: parsed.executionId, progress: parsed.value.progress });
          return done();
        }
        case 'mcp-tool-input':
        case 'mcp-prompt-input':
        case 'mcp-resource-input': {
          const parsed = parseInputPayload(msg.payload);
          if (!parsed.ok) return done(new Error(t('errors.badInput', { problem: parsed.problem })));
          if (controller.ask(parsed.executionId, parsed.ask) === 'unknown') {
            requestLog.warn('unknownExecution', t('errors.unknownExecution', { executionId: parsed.executionId }));
          }
          return done();
        }
        case 'mcp-tool-log': {
          const parsed = parseLogPayload(msg.payload);
          if (!parsed.ok) return done(new Error(t('errors.badLog', { field: parsed.field })));
          if (controller.log(parsed.executionId, parsed.value) === 'unknown') warnThrottled('log-unknown', 'unknownLog', { executionId: parsed.executionId });
          return done();
        }
        case 'mcp-resource-updated': {
          const uri = msg.payload?.uri;
          if (typeof uri !== 'string' || uri === '') return done(new Error(t('errors.badResourceUpdate')));
          const delivery = controller.resourceUpdated(uri);
          // A URI no resource here has is a mistake in the flow; one nobody listens to is normal.
          if (delivery === 'unknown') requestLog.warn('unknownResourceUpdate', t('errors.unknownResourceUpdate', { uri: uri.slice(0, 200) }));
          else if (delivery === 'unwatched' || delivery === 'stopped') {
            const held = throttle.admit(`resource-update ${delivery}`);
            if (held !== undefined) node.debug(t(`errors.${delivery === 'stopped' ? 'resourceUpdateStopped' : 'unwatchedResourceUpdate'}`, { uri: uri.slice(0, 200) }));
          }
          return done();
        }
        case 'start':
          audit({ event: 'mcp.command', command: 'start', endpoint: controller.path });
          stoppedByCommand = false;
          controller.start().then(() => done(), done);
          return;
        case 'stop':
          audit({ event: 'mcp.command', command: 'stop', endpoint: controller.path });
          stoppedByCommand = true;
          controller.stop('the endpoint was stopped by a stop command').then(() => done(), done);
          return;
        case 'restart':
          audit({ event: 'mcp.command', command: 'restart', endpoint: controller.path });
          stoppedByCommand = false;
          controller.restart('the endpoint was restarted by a restart command').then(() => done(), done);
          return;
        default:
          return done(new Error(t('errors.unknownCommand', { topic: String(msg.topic) })));
      }
    });

    node.on('close', (removed: boolean, done: () => void) => {
      endpointDirectory.unregister(directoryEntry);
      RED.events.removeListener('flows:started', onFlowsStarted);
      stopWatchingStorage?.();
      stopWatchingPrimary?.();
      requestLog.flush();
      // A redeployed endpoint keeps its recent calls; a removed one's go once its last call has ended.
      const finish = () => {
        if (removed) recentCalls.forget(node.id);
        done();
      };
      if (!controller) return finish();
      const reason = removed ? 'the endpoint was removed' : 'the endpoint was redeployed';
      controller.stop(reason).then(finish, finish);
    });

    function createController(): EndpointController | undefined {
      runtimeNode = RED.nodes.getNode(config.runtime ?? '') as McpRuntimeNode | null;
      if (!runtimeNode) {
        fail(t('errors.noRuntime'));
        return undefined;
      }
      if (!runtimeNode.settings || !runtimeNode.site) {
        fail(t('errors.invalidRuntime', { reason: runtimeNode.configError ?? '' }));
        return undefined;
      }
      let settings;
      try {
        settings = parseFlowServerConfig(config as unknown as Record<string, unknown>);
      } catch (error) {
        if (!(error instanceof McpPaletteError)) throw error;
        fail(describe(error));
        return undefined;
      }
      authNode = config.auth ? (RED.nodes.getNode(config.auth) as McpAuthNode | null) : null;
      if (settings.access === 'oauth' && authNode && !authNode.configuration) {
        fail(t('errors.invalidAuth', { reason: authNode.configError ?? '' }));
        return undefined;
      }
      const storageNode = config.storage ? (RED.nodes.getNode(config.storage) as McpRedisNode | null) : null;
      if (config.storage && !storageNode?.store) {
        fail(t('errors.invalidStorage'));
        return undefined;
      }
      node.status({ fill: 'yellow', shape: 'ring', text: t('status.starting') });
      const telemetry = runtimeNode.telemetry;
      const signedIn = settings.access === 'oauth';
      if (signedIn) storage = authNode?.configuration?.store;
      // Tasks live where the endpoint's other state lives, so every instance behind a load balancer
      // can answer for them; an endpoint with no storage at all keeps them in this process.
      // On an edge the storage node is for relaying, and its Redis user may do nothing else (one
      // site's channels): tasks, list changes and answers to questions stay in this process there.
      const relayOnly = settings.edges.site !== undefined;
      const sharedStore = (relayOnly ? undefined : storageNode?.store) ?? storage;
      const taskStore = sharedStore ?? (processTaskStore ??= new MemoryStore());
      if (!signedIn && storageNode?.store) storage = storageNode.store;
      return new EndpointController({
        settings,
        runtime: runtimeNode.settings,
        site: runtimeNode.site,
        tools: toolRegistry,
        builtInTools: adminTools(runtimeNode, settings.path),
        access: { auth: authNode?.configuration, authRegistry, audit, nodeRedAuth: runtimeNode.nodeRedAuth ?? false },
        logger: loggerOf(node),
        execute: (request, context) => node.send(toolExecuteMessage(request, context)),
        // Lets the flow stop work nobody waits for any more; sent once per call, never for answered ones.
        onAbandoned: (executionId, reason, context) => node.send(toolCancelMessage(executionId, reason, context)),
        tasks: {
          store: taskStore,
          limits: {
            maxTasks: settings.tasks.maxTasks,
            maxTasksPerCaller: settings.tasks.maxTasksPerCaller,
            maxStoredTasks: settings.tasks.maxStored,
            maxStoredTasksPerCaller: settings.tasks.maxStoredPerCaller,
            ttlMs: settings.tasks.ttlSeconds * 1000,
            pollIntervalMs: DEFAULTS.taskPollIntervalMs,
            maxResultBytes: settings.tasks.maxResultKb * 1024,
          },
        },
        content: contentRegistry,
        executeContent: (executionId, call) => node.send(requestMessage(executionId, call)),
        onContentAbandoned: (executionId, reason, call) => node.send(cancelMessage(executionId, reason, call)),
        onContentFinished: (event) => {
          if (telemetry?.wantsContent) telemetry.publish(contentTelemetry(event));
          const line = signedIn ? contentAudit(event) : undefined;
          if (line) audit(line);
        },
        measureResponses: () => telemetry?.hasSubscriber ?? false,
        measureContentResponses: () => telemetry?.wantsContent ?? false,
        onCallFinished: (call) => {
          const event = toolTelemetry(call, storage);
          // Kept for the editor's sidebar even without a metrics node, under this node's id.
          recentCalls.record(node.id, event);
          telemetry?.publish(event);
          // Calls are audited where there is someone to audit: on endpoints with sign-in, and every
          // call an editor user started from the sidebar.
          const line = signedIn || call.caller.editor ? toolCallAudit(call) : undefined;
          if (line) audit(line);
        },
        onState: (state) => showState(state),
        // List-changed news crosses instances where task records do (never through process memory).
        ...(sharedStore ? { changes: sharedStore } : {}),
        // Edge relaying uses the endpoint's own storage node (an edge's Redis user may do nothing else).
        ...(storageNode?.store ? { edgeStore: storageNode.store } : {}),
      });
    }

    function showState(state: EndpointState): void {
      switch (state.state) {
        case 'starting':
          return node.status({ fill: 'yellow', shape: 'ring', text: t('status.starting') });
        case 'serving': {
          const text =
            state.resources === 0 && state.prompts === 0
              ? t('status.servingTools', { count: state.tools, url: state.url })
              : t('status.servingContent', {
                  tools: t('status.tools', { count: state.tools }),
                  resources: t('status.resources', { count: state.resources }),
                  prompts: t('status.prompts', { count: state.prompts }),
                  url: state.url,
                });
          if (text !== lastServing) node.log(text);
          lastServing = text;
          if (storage && storage.state !== 'ready') {
            const fill = storage.state === 'failed' ? 'red' : 'yellow';
            return node.status({ fill, shape: 'ring', text: t('status.storage', { state: storage.state }) });
          }
          return node.status({ fill: 'green', shape: 'dot', text: withPrimary(text, storage?.primary) });
        }
        case 'stopped':
          lastServing = '';
          return node.status({ fill: 'grey', shape: 'ring', text: t('status.stopped') });
        case 'failed':
          return fail(describe(state.error));
      }
    }
  }
  /**
   * Sentinel mode: which primary the storage writes to, and since when once a failover moved it.
   * Cluster mode: how many primaries, and when a failover last replaced one.
   */
  function withPrimary(text: string, primary: StorePrimary | undefined): string {
    if (!primary) return text;
    if (primary.role === 'cluster') {
      const count = primary.address.split(',').length;
      const cluster = primary.switches === 0
        ? RED._('mcp-flow-server.status.redisCluster', { count })
        : RED._('mcp-flow-server.status.redisClusterFailover', { count, time: new Date(primary.since).toISOString().slice(11, 19) });
      return `${text} · ${cluster}`;
    }
    const where = primary.switches === 0
      ? RED._('mcp-flow-server.status.redisPrimary', { address: primary.address })
      : RED._('mcp-flow-server.status.redisFailover', { address: primary.address, time: new Date(primary.since).toISOString().slice(11, 19) });
    return `${text} · ${where}`;
  }
  RED.nodes.registerType('mcp-flow-server', McpFlowServer);
}
