import { isPlainObject } from '../mcp/json-schema.js';
import type { Findings, Inspection } from './inspection.js';
import { GET_FLOW_LIMITS, REDACTED } from './limits.js';
import { childPath, isHeadersKey, isSecretKey, redactUrlSecrets, redactUrlUserInfo } from './redaction.js';
import { meaningOfJsonText, meaningOfProperty, secretFieldsOf, typeOfField, type Meaning } from './secret-fields.js';

/** Bytes of values one answer may still carry (the 64 KiB config budget). */
export class ByteBudget {
  used = 0;
  constructor(readonly max: number = GET_FLOW_LIMITS.configBudgetBytes) {}
}

export interface CopyScope {
  readonly inspection: Inspection;
  readonly findings: Findings;
  readonly budget?: ByteBudget;
}

const OMITTED: unique symbol = Symbol('omitted');
/** A copied value, or OMITTED when it was left out (and listed). */
type Copied = unknown;

/**
 * Copies one property for an answer: secrets and env values redacted, nesting and walked values
 * bounded, and the whole value dropped (and listed) when it is over 32 KiB or over the budget.
 * `owner` is the node the property belongs to: its type and settings tell what some values mean
 * (a switch's rules compare a secret when its property is secret-named). Returns `undefined` when
 * the property is left out.
 */
export function copyProperty(
  key: string,
  value: unknown,
  path: string,
  scope: CopyScope,
  owner?: Readonly<Record<string, unknown>>,
): { value: unknown } | undefined {
  const copied = copyEntry(key, value, path, scope, 1, owner, meaningOfProperty(owner, key));
  if (copied === OMITTED || copied === undefined) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(copied));
  if (bytes > GET_FLOW_LIMITS.maxValueBytes) {
    omit(path, scope);
    return undefined;
  }
  if (scope.budget) {
    if (scope.budget.used + bytes > scope.budget.max) {
      omit(path, scope);
      return undefined;
    }
    scope.budget.used += bytes;
  }
  return { value: copied };
}

/** Node-RED env lists keep their names and types; every value, whatever its type, is hidden. */
export function copyEnv(value: unknown, path: string, scope: CopyScope): unknown {
  if (!Array.isArray(value)) return redact(path, scope);
  const entries: unknown[] = [];
  for (const [index, item] of value.entries()) {
    const itemPath = childPath(path, index);
    if (entries.length >= GET_FLOW_LIMITS.pageSize || !scope.inspection.visitValue()) {
      omit(itemPath, scope);
      break;
    }
    if (!isPlainObject(item)) {
      entries.push(redact(itemPath, scope));
      continue;
    }
    const entry: Record<string, unknown> = {};
    if (typeof item.name === 'string') entry.name = redactUrlUserInfo(item.name);
    if (typeof item.type === 'string') entry.type = item.type;
    if ('value' in item) entry.value = redact(childPath(itemPath, 'value'), scope);
    entries.push(entry);
  }
  return entries;
}

function copyEntry(
  key: string,
  value: unknown,
  path: string,
  scope: CopyScope,
  depth: number,
  siblings: Readonly<Record<string, unknown>> | undefined,
  meaning: Meaning,
): Copied {
  if (value === undefined) return OMITTED;
  if (key === 'credentials' || isSecretKey(key)) return redact(path, scope);
  if (key === 'env') return copyEnv(value, path, scope);
  if (siblings && typeof value === 'string' && typeOfField(siblings, key) === 'json') {
    return copyJsonText(value, path, scope, depth, meaningOfJsonText(siblings));
  }
  return copyNested(value, path, scope, depth, meaning);
}

function copyNested(value: unknown, path: string, scope: CopyScope, depth: number, meaning: Meaning): Copied {
  if (!scope.inspection.visitValue()) return omit(path, scope);
  if (typeof value === 'string') {
    // Longer than the per-value cap in characters means longer in bytes too: dropped here, so the
    // rest of the structure it sits in can still be shown.
    if (value.length > GET_FLOW_LIMITS.maxValueBytes) return omit(path, scope);
    const safe = redactUrlSecrets(value);
    if (safe !== value) scope.findings.redacted.push(path);
    return safe;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (Array.isArray(value) || isPlainObject(value)) {
    if (depth > GET_FLOW_LIMITS.maxDepth) return omit(path, scope);
    return Array.isArray(value) ? copyArray(value, path, scope, depth, meaning) : copyObject(value, path, scope, depth, meaning);
  }
  return OMITTED;
}

/**
 * A value Node-RED keeps as JSON text (`vt: "json"`): parsed so the secrets inside are redacted
 * like any others, and shown as text again. Text that does not parse cannot be searched, so it is
 * left out (and listed).
 */
function copyJsonText(text: string, path: string, scope: CopyScope, depth: number, meaning: Meaning): Copied {
  if (text.length > GET_FLOW_LIMITS.maxValueBytes) return omit(path, scope);
  if (text.trim() === '') return copyNested(text, path, scope, depth, 'plain');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return omit(path, scope);
  }
  const copied = copyNested(parsed, path, scope, depth, meaning);
  return copied === OMITTED ? OMITTED : JSON.stringify(copied);
}

function copyArray(value: readonly unknown[], path: string, scope: CopyScope, depth: number, meaning: Meaning): unknown[] {
  const copy: unknown[] = [];
  for (const [index, item] of value.entries()) {
    const itemPath = childPath(path, index);
    if (scope.inspection.valuesExhausted) {
      omit(itemPath, scope);
      break;
    }
    // A list's meaning is its items' (a header list holds header entries).
    const copied = copyNested(item, itemPath, scope, depth + 1, meaning);
    if (copied !== OMITTED) copy.push(copied);
  }
  return copy;
}

function copyObject(value: Record<string, unknown>, path: string, scope: CopyScope, depth: number, meaning: Meaning): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  const secret = new Set(secretFieldsOf(value, meaning));
  for (const [key, item] of Object.entries(value)) {
    const itemPath = childPath(path, key);
    if (scope.inspection.valuesExhausted) {
      omit(itemPath, scope);
      break;
    }
    if (item === undefined) continue;
    if (secret.has(key)) {
      copy[key] = redact(itemPath, scope);
      continue;
    }
    const copied = copyEntry(key, item, itemPath, scope, depth + 1, value, isHeadersKey(key) ? 'headers' : 'plain');
    if (copied !== OMITTED) copy[key] = copied;
  }
  return copy;
}

function redact(path: string, scope: CopyScope): string {
  scope.findings.redacted.push(path);
  return REDACTED;
}

function omit(path: string, scope: CopyScope): typeof OMITTED {
  scope.findings.omitted.push(path);
  scope.inspection.truncated = true;
  return OMITTED;
}
