import { Ajv, AjvJsonSchemaValidator, addFormats } from '@modelcontextprotocol/server/validators/ajv';
import { isPlainObject } from '../core/is-plain-object.js';

/** One problem found in a value, located by JSON pointer (`/city`, `/items/0/id`; `/` is the root). */
export interface SchemaProblem {
  readonly pointer: string;
  readonly message: string;
}

export type ValueCheck = (value: unknown) => readonly SchemaProblem[];

interface AjvErrorLike {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}
interface AjvValidateLike {
  (value: unknown): boolean;
  errors?: AjvErrorLike[] | null;
}
interface AjvEngine {
  compile(schema: object): AjvValidateLike;
  validateSchema(schema: object): boolean | Promise<unknown>;
  removeSchema(schema: object): unknown;
  errors?: AjvErrorLike[] | null;
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const ENGINE_OPTIONS = { strict: false, allErrors: true, validateFormats: true } as const;

// The SDK bundles ajv rather than depending on it, so its engines are reached through the SDK's
// own provider: its default engine is the 2020-12 one the MCP spec names as the default dialect.
// Draft-07 stays supported because most schemas pasted from elsewhere still declare it.
let engine2020: AjvEngine | undefined;
let engineDraft07: AjvEngine | undefined;

function engineFor(schema: Record<string, unknown>): AjvEngine {
  const declared = schema.$schema;
  if (declared === undefined || (typeof declared === 'string' && DRAFT_2020.test(declared))) {
    engine2020 ??= (new AjvJsonSchemaValidator() as unknown as { ajv: AjvEngine }).ajv;
    return engine2020;
  }
  if (typeof declared === 'string' && DRAFT_07.test(declared)) {
    engineDraft07 ??= addFormats(new Ajv(ENGINE_OPTIONS)) as unknown as AjvEngine;
    return engineDraft07;
  }
  throw new Error(`unsupported $schema ${JSON.stringify(declared)}: use JSON Schema 2020-12 (the default) or draft-07`);
}

/**
 * Checks that `schema` is a JSON Schema object and compiles it once into a value check.
 * Throws an Error whose message lists what is wrong; callers turn it into their own error code.
 */
export function compileSchema(schema: unknown): ValueCheck {
  if (!isPlainObject(schema)) throw new Error('must be a JSON object');
  const engine = engineFor(schema);
  if (engine.validateSchema(schema) !== true) {
    throw new Error(describeProblems(toProblems(engine.errors ?? [])));
  }
  let validate: AjvValidateLike;
  try {
    validate = engine.compile(schema);
  } catch (error) {
    throw new Error(error instanceof Error ? error.message : String(error));
  } finally {
    // The compiled function is all we keep; dropping ajv's cache entry stops redeploys from
    // accumulating schemas and lets the same $id be compiled again on the next deploy.
    engine.removeSchema(schema);
  }
  return (value) => (validate(value) ? [] : toProblems(validate.errors ?? []));
}

export function describeProblems(problems: readonly SchemaProblem[]): string {
  return problems.map((problem) => `${problem.pointer}: ${problem.message}`).join('; ');
}

function toProblems(errors: readonly AjvErrorLike[]): SchemaProblem[] {
  const problems = errors.map((error): SchemaProblem => {
    const base = error.instancePath;
    if (error.keyword === 'required' && typeof error.params.missingProperty === 'string') {
      return { pointer: `${base}/${escapePointer(error.params.missingProperty)}`, message: 'is required' };
    }
    if (error.keyword === 'additionalProperties' && typeof error.params.additionalProperty === 'string') {
      return { pointer: `${base}/${escapePointer(error.params.additionalProperty)}`, message: 'is not allowed' };
    }
    return { pointer: base === '' ? '/' : base, message: error.message ?? error.keyword };
  });
  // allErrors reports the same failure once per failing branch (anyOf/oneOf); one line each is enough.
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.pointer}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export { isPlainObject };
