import { Ajv, AjvJsonSchemaValidator, addFormats } from '@modelcontextprotocol/server/validators/ajv';
import { isPlainObject } from '../core/is-plain-object.js';
import { linearPattern, UnsupportedPattern, type PatternEngine } from './linear-pattern.js';

/** One problem found in a value, located by JSON pointer (`/city`, `/items/0/id`; `/` is the root). */
export interface SchemaProblem {
  readonly pointer: string;
  readonly message: string;
}

export type ValueCheck = (value: unknown) => readonly SchemaProblem[];

/**
 * Why a schema cannot be used, one entry per problem for people to read: the meta-schema rule a
 * place breaks (with the keyword's own parameters), a dialect the palette does not run, a
 * pattern the linear-time engine cannot run (lookahead, backreferences...), or a compile failure
 * (an unresolvable $ref).
 */
export type SchemaFault =
  | { readonly kind: 'rule'; readonly pointer: string; readonly keyword: string; readonly params: Readonly<Record<string, unknown>> }
  | { readonly kind: 'dialect'; readonly dialect: string }
  | { readonly kind: 'compile'; readonly detail: string }
  | { readonly kind: 'pattern'; readonly pattern: string; readonly detail: string };

/** What compileSchema throws: the message as before, and the faults for a sentence each. */
export class SchemaCompileError extends Error {
  readonly faults: readonly SchemaFault[];

  constructor(message: string, faults: readonly SchemaFault[]) {
    super(message);
    this.name = 'SchemaCompileError';
    this.faults = faults;
  }
}

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
// own provider: its default engine is the 2020-12 one the MCP spec names as the default dialect
// (its class, built here with our options). Draft-07 stays supported because most schemas pasted
// from elsewhere still declare it. Both run every pattern on the linear-time engine
// (linear-pattern.ts): V8's backtracking RegExp never runs a schema's pattern.
let engine2020: AjvEngine | undefined;
let engineDraft07: AjvEngine | undefined;
/** The patterns a compile in progress could not run; undefined outside compileSchema. */
let refusedPatterns: UnsupportedPattern[] | undefined;

/** ajv's `code.regExp`: every pattern on the linear-time engine. */
const linearRegExp: PatternEngine = Object.assign(
  (pattern: string, flags: string) => {
    try {
      return linearPattern(pattern, flags);
    } catch (error) {
      if (!(error instanceof UnsupportedPattern) || !refusedPatterns) throw error;
      // Collected so that one refusal names every such pattern; the schema is refused after compiling.
      refusedPatterns.push(error);
      return { test: () => false, toString: () => `/${pattern}/${flags}` };
    }
  },
  { code: 'linearPattern' },
);
const LINEAR_OPTIONS = { ...ENGINE_OPTIONS, code: { regExp: linearRegExp } };

function engineFor(schema: Record<string, unknown>): AjvEngine {
  const declared = schema.$schema;
  if (declared === undefined || (typeof declared === 'string' && DRAFT_2020.test(declared))) {
    if (!engine2020) {
      const sdkDefault = (new AjvJsonSchemaValidator() as unknown as { ajv: { constructor: new (options: object) => AjvEngine } }).ajv;
      // As the SDK builds its own (it checks schemas only when asked, as compileSchema does).
      engine2020 = addFormats(new sdkDefault.constructor({ ...LINEAR_OPTIONS, validateSchema: false }) as never) as unknown as AjvEngine;
    }
    return engine2020;
  }
  if (typeof declared === 'string' && DRAFT_07.test(declared)) {
    engineDraft07 ??= addFormats(new Ajv(LINEAR_OPTIONS)) as unknown as AjvEngine;
    return engineDraft07;
  }
  throw new SchemaCompileError(`unsupported $schema ${JSON.stringify(declared)}: use JSON Schema 2020-12 (the default) or draft-07`, [
    { kind: 'dialect', dialect: JSON.stringify(declared) },
  ]);
}

/**
 * Checks that `schema` is a JSON Schema object and compiles it once into a value check.
 * Throws an Error whose message lists what is wrong; callers turn it into their own error code.
 */
export function compileSchema(schema: unknown): ValueCheck {
  if (!isPlainObject(schema)) throw new Error('must be a JSON object');
  const engine = engineFor(schema);
  if (engine.validateSchema(schema) !== true) {
    const errors = engine.errors ?? [];
    throw new SchemaCompileError(describeProblems(toProblems(errors)), toFaults(errors));
  }
  let validate: AjvValidateLike;
  const refused: UnsupportedPattern[] = [];
  refusedPatterns = refused;
  try {
    validate = engine.compile(schema);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new SchemaCompileError(detail, [{ kind: 'compile', detail }]);
  } finally {
    refusedPatterns = undefined;
    // The compiled function is all we keep; dropping ajv's cache entry stops redeploys from
    // accumulating schemas and lets the same $id be compiled again on the next deploy.
    engine.removeSchema(schema);
  }
  if (refused.length > 0) {
    // Each named once, and a few at most: an edge may announce thousands.
    const unique = [...new Map(refused.map((refusal) => [refusal.pattern, refusal])).values()];
    const named = unique.slice(0, 3);
    const more = unique.length > named.length ? ` (and ${unique.length - named.length} more such patterns)` : '';
    throw new SchemaCompileError(
      `${named.map((refusal) => refusal.message).join('; ')}${more}`,
      named.map((refusal) => ({ kind: 'pattern', pattern: refusal.pattern, detail: refusal.detail })),
    );
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

// Branching keywords only say "no branch matched"; the branches' own errors say why.
const BRANCH_KEYWORDS = new Set(['anyOf', 'oneOf', 'allOf', 'if', 'not', '$ref', '$dynamicRef']);

/**
 * The meta-schema's errors cut to one per problem. ajv reports every failed branch: a misspelt
 * `"type": "strin"` fails both the list of type names and "an array of them", plus the anyOf that
 * joins them. At one place, a branch whose type did not even match (`type`) is dropped when another
 * error there says more, and the joining keyword is dropped when anything else is left.
 */
function toFaults(errors: readonly AjvErrorLike[]): SchemaFault[] {
  const byPlace = new Map<string, AjvErrorLike[]>();
  for (const error of errors) {
    const place = error.instancePath === '' ? '/' : error.instancePath;
    byPlace.set(place, [...(byPlace.get(place) ?? []), error]);
  }
  const places = [...byPlace.keys()];
  const faults: SchemaFault[] = [];
  const seen = new Set<string>();
  for (const [place, group] of byPlace) {
    const deeper = places.some((other) => other !== place && (place === '/' || other.startsWith(`${place}/`)));
    let kept = group.filter((error) => !BRANCH_KEYWORDS.has(error.keyword));
    if (kept.some((error) => error.keyword !== 'type')) kept = kept.filter((error) => error.keyword !== 'type');
    if (kept.length === 0 && !deeper) kept = group.slice(0, 1);
    for (const error of kept) {
      const key = `${place}\u0000${error.keyword}\u0000${JSON.stringify(error.params)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      faults.push({ kind: 'rule', pointer: place, keyword: error.keyword, params: error.params });
    }
  }
  return faults;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export { isPlainObject };
