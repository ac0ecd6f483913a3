import { isPlainObject } from '../core/is-plain-object.js';
import { compileSchema, type ValueCheck } from '../mcp/json-schema.js';

// The compiled check of a form's content, shared by the flow's question (input-requests.ts: can this
// schema check answers?) and the client's answer (answer-checks.ts), so each form compiles once.

/**
 * Whether a flow's requested schema can check answers: compiled here when the flow asks, so a
 * schema the engine cannot use (an invalid `pattern`) fails the flow's message, not the answer.
 */
export function requestedSchemaProblem(schema: unknown): string | undefined {
  try {
    formContentCheck(schema);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Compiled form checks, by the schema's JSON: a flow asks the same form again and again. */
const compiled = new Map<string, ValueCheck>();
const MAX_COMPILED = 256;

/**
 * The check of a form's content: the requested schema with no members beyond its properties (a
 * form has no others, and a flow must not be handed fields it never asked for). Compiled by the
 * palette's one schema compiler, whose pattern engine is the one every other check uses.
 */
export function formContentCheck(requestedSchema: unknown): ValueCheck {
  const key = JSON.stringify(requestedSchema);
  let check = compiled.get(key);
  if (check) return check;
  if (!isPlainObject(requestedSchema)) throw new Error('requestedSchema must be an object');
  check = compileSchema({ ...requestedSchema, additionalProperties: false });
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, check);
  return check;
}
