import type { FlowNode } from './flow-shapes.js';
import { ByteBudget, copyProperty, type CopyScope } from './copy-value.js';
import type { Inspection } from './inspection.js';
import { GET_FLOW_LIMITS } from './limits.js';
import { childPath } from './redaction.js';

/**
 * The execution settings `includeConfig` shows, per node type. Anything not listed stays out:
 * arbitrary properties of unknown node types can hold anything.
 */
export const NODE_SETTINGS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  inject: ['props', 'payload', 'payloadType', 'topic', 'repeat', 'crontab', 'once', 'onceDelay'],
  'link in': ['links'],
  'link out': ['mode', 'links'],
  'link call': ['links', 'linkType', 'timeout'],
  switch: ['property', 'propertyType', 'rules', 'checkall', 'repair', 'outputs'],
  catch: ['scope', 'uncaught'],
  mongodb4: ['mode', 'collection', 'operation', 'output', 'maxTimeMS', 'handleDocId'],
  'mcp-flow-server': ['path', 'access', 'groups'],
  'mcp-tool-registry': [
    'toolName',
    'title',
    'description',
    'inputSchema',
    'outputSchema',
    'endpoint',
    'readOnlyHint',
    'destructiveHint',
    'idempotentHint',
    'openWorldHint',
    'timeout',
  ],
});

/** Settings stored as JSON Schema text: parsed so secret-named keys inside can be redacted. */
const SCHEMA_TEXT = new Set(['inputSchema', 'outputSchema']);

export function configSupported(type: string): boolean {
  return Object.hasOwn(NODE_SETTINGS, type);
}

/**
 * The supported settings of one node, as configured: no defaults filled in, types kept (a
 * schema stored as text comes back as text). Bounded by the 64 KiB config budget.
 */
export function nodeSettings(node: FlowNode, inspection: Inspection): Record<string, unknown> | undefined {
  const keys = NODE_SETTINGS[node.type];
  if (!keys) return undefined;
  const scope: CopyScope = { inspection, findings: inspection.configFindings, budget: new ByteBudget(GET_FLOW_LIMITS.configBudgetBytes) };
  const settings: Record<string, unknown> = {};
  for (const key of keys) {
    if (!Object.hasOwn(node, key) || node[key] === undefined) continue;
    const path = childPath('config', key);
    const copied = SCHEMA_TEXT.has(key) ? copySchemaText(key, node[key], path, scope) : copyProperty(key, node[key], path, scope, node);
    if (copied) settings[key] = copied.value;
  }
  return settings;
}

function copySchemaText(key: string, value: unknown, path: string, scope: CopyScope): { value: unknown } | undefined {
  if (typeof value !== 'string' || value.trim() === '') return copyProperty(key, value, path, scope);
  if (value.length > GET_FLOW_LIMITS.maxValueBytes) return copyProperty(key, value, path, scope);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    // Unparseable text cannot be searched for secret keys, so none of it is shown.
    scope.findings.omitted.push(path);
    return undefined;
  }
  const copied = copyProperty(key, parsed, path, scope);
  return copied ? { value: JSON.stringify(copied.value) } : undefined;
}
