import { RE2JS } from 're2js';

/**
 * JSON Schema patterns (`pattern`, `patternProperties`, and through them `propertyNames`) on a
 * linear-time engine. V8's RegExp backtracks: `^(a+)+$` against forty a's and a '!' runs for hours,
 * on the one thread that serves every endpoint, sign-in and flow of the Node-RED. Patterns come from
 * places the palette does not control (an edge's announced schemas, a flow's elicitation) and meet
 * data it does not control (a caller's arguments, an edge's answer), so every one runs on RE2
 * (re2js: pure JavaScript, time linear in the input, nothing native to install).
 *
 * Schema patterns are ECMA-262 with the `u` flag (ajv's default). RE2 reads most of them alike; where
 * the two differ (`\s`, `.`, property names, `[` inside a class) the pattern is translated so it
 * means what it meant on V8. What RE2 cannot do at all (lookahead, lookbehind, backreferences, a
 * repeat count above 1000) is refused with the construct named, where the schema is set.
 */

/** A pattern the linear-time engine cannot run, and the part of it that is why. */
export class UnsupportedPattern extends Error {
  constructor(
    readonly pattern: string,
    readonly detail: string,
  ) {
    super(`pattern ${quotePattern(pattern)} cannot run on the linear-time engine: ${detail}`);
    this.name = 'UnsupportedPattern';
  }
}

/** A pattern as sentences and log lines quote it: an edge may announce one of any length. */
export function quotePattern(pattern: string): string {
  return JSON.stringify(pattern.length > 120 ? `${pattern.slice(0, 120)}…` : pattern);
}

/** What ajv's `code.regExp` option is given: a RegExp-like maker, with a name for standalone code. */
export interface PatternEngine {
  (pattern: string, flags: string): { test(text: string): boolean };
  code: string;
}

/**
 * A compiled RE2 program is kept by at most this many patterns at once (the most recently loaded):
 * a program with its lazily built automaton can reach megabytes (`[ab]{999}` alone compiles to
 * some 70 KB), so a hub fed ever new schemas by an edge must not keep one for each. An evicted
 * pattern compiles again on its next use (well under a millisecond for common patterns).
 */
const MAX_LOADED_PROGRAMS = 64;
const loaded: LinearPattern[] = [];

class LinearPattern {
  private program: RE2JS | undefined;

  // Only the source is kept: ajv keeps this object as long as its engine lives, and the translation
  // can be many times longer (`.` and `\s` become classes); it is made again when needed.
  constructor(
    private readonly source: string,
    private readonly flags: string,
  ) {
    // Compiled now, so a pattern RE2 refuses is refused when its schema is set, not at its first use.
    this.program = this.load();
  }

  test(text: string): boolean {
    return (this.program ??= this.load()).test(text);
  }

  /** ajv keys the patterns it shares between schemas by this text. */
  toString(): string {
    return `/${this.source}/${this.flags}`;
  }

  private load(): RE2JS {
    let program: RE2JS;
    try {
      program = RE2JS.compile(toRe2Syntax(this.source));
    } catch (error) {
      if (error instanceof UnsupportedPattern) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new UnsupportedPattern(this.source, message.replace(/^error parsing regexp: /, ''));
    }
    loaded.push(this);
    if (loaded.length > MAX_LOADED_PROGRAMS) loaded.shift()!.program = undefined;
    return program;
  }
}

/**
 * Compiles one schema pattern for the linear-time engine. Throws V8's SyntaxError for a pattern that
 * is no valid JavaScript pattern (as ajv did before), UnsupportedPattern for one RE2 cannot run.
 */
export function linearPattern(pattern: string, flags = 'u'): { test(text: string): boolean } {
  // Compiled, never run: V8 checks the syntax in time linear in the pattern, and the translation
  // below then only meets valid syntax.
  new RegExp(pattern, flags);
  return new LinearPattern(pattern, flags);
}

/**
 * Why `pattern` cannot be a schema pattern (not a JavaScript `u` pattern, or one the linear-time
 * engine cannot run), for places that take a schema without compiling it (a flow's elicitation).
 */
export function patternProblem(pattern: string): string | undefined {
  try {
    linearPattern(pattern);
    return undefined;
  } catch (error) {
    if (error instanceof UnsupportedPattern) return error.message;
    return `pattern ${quotePattern(pattern)} is not a valid regular expression`;
  }
}

type Ranges = ReadonlyArray<readonly [number, number]>;

// ECMA-262 WhiteSpace and LineTerminator: `\s` on V8. RE2's `\s` is ASCII only.
const WHITE_SPACE: Ranges = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
  [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
// What `.` does not match without the `s` flag; RE2's `.` only leaves out \n.
const LINE_TERMINATORS: Ranges = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];
const ASCII: Ranges = [[0x00, 0x7f]];
const ASCII_HEX_DIGIT: Ranges = [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]];
const MAX_CODE_POINT = 0x10ffff;

/** JavaScript's General_Category names and aliases, as RE2 spells them (one or two letters). */
const GENERAL_CATEGORY: Readonly<Record<string, string>> = {
  Letter: 'L', Uppercase_Letter: 'Lu', Lowercase_Letter: 'Ll', Titlecase_Letter: 'Lt', Modifier_Letter: 'Lm', Other_Letter: 'Lo',
  Mark: 'M', Combining_Mark: 'M', Nonspacing_Mark: 'Mn', Spacing_Mark: 'Mc', Enclosing_Mark: 'Me',
  Number: 'N', Decimal_Number: 'Nd', digit: 'Nd', Letter_Number: 'Nl', Other_Number: 'No',
  Punctuation: 'P', punct: 'P', Connector_Punctuation: 'Pc', Dash_Punctuation: 'Pd', Open_Punctuation: 'Ps', Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi', Final_Punctuation: 'Pf', Other_Punctuation: 'Po',
  Symbol: 'S', Math_Symbol: 'Sm', Currency_Symbol: 'Sc', Modifier_Symbol: 'Sk', Other_Symbol: 'So',
  Separator: 'Z', Space_Separator: 'Zs', Line_Separator: 'Zl', Paragraph_Separator: 'Zp',
  Other: 'C', Control: 'Cc', cntrl: 'Cc', Format: 'Cf', Surrogate: 'Cs', Private_Use: 'Co',
};
const SHORT_CATEGORIES = new Set(Object.values(GENERAL_CATEGORY));

/** One escape or class atom: a code point, or a set with its spelling alone and inside a class. */
type Atom = { readonly codePoint: number } | { readonly alone: string; readonly inClass: string };

/**
 * ECMA-262 (`u` flag) pattern syntax to RE2 syntax with the same meaning. The input has passed
 * ajv's `format: regex` check (V8 compiled it with `u`), so only valid syntax needs handling.
 */
export function toRe2Syntax(pattern: string): string {
  let out = '';
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index]!;
    if (char === '\\') {
      if (pattern[index + 1] === 'b' || pattern[index + 1] === 'B') {
        out += pattern.slice(index, index + 2); // ASCII word boundaries on both engines
        index += 2;
        continue;
      }
      const [atom, length] = readEscape(pattern, index);
      out += 'codePoint' in atom ? hex(atom.codePoint) : atom.alone;
      index += length;
    } else if (char === '[') {
      const [text, length] = readClass(pattern, index);
      out += text;
      index += length;
    } else if (char === '.') {
      out += `[^${rangesText(LINE_TERMINATORS)}]`;
      index += 1;
    } else if (char === '(') {
      const [text, length] = readGroupOpening(pattern, index);
      out += text;
      index += length;
    } else {
      // The syntax characters outside a class mean the same on both engines; the rest are literal.
      out += char;
      index += 1;
    }
  }
  return out;
}

function readGroupOpening(pattern: string, index: number): [string, number] {
  if (pattern[index + 1] !== '?') return ['(', 1];
  const rest = pattern.slice(index, index + 4);
  if (rest.startsWith('(?:')) return ['(?:', 3];
  if (rest.startsWith('(?=') || rest.startsWith('(?!')) throw new UnsupportedPattern(pattern, `lookahead ${rest.slice(0, 3)} is not supported`);
  if (rest.startsWith('(?<=') || rest.startsWith('(?<!')) throw new UnsupportedPattern(pattern, `lookbehind ${rest} is not supported`);
  if (rest.startsWith('(?<')) {
    // A named group: the name only matters to backreferences, which RE2 has not.
    const end = pattern.indexOf('>', index);
    return ['(', end - index + 1];
  }
  throw new UnsupportedPattern(pattern, `the group modifier ${rest.slice(0, 3)} is not supported`);
}

/** A whole class `[...]`, re-spelt atom by atom so RE2 reads nothing special into it (`[:alpha:]`). */
function readClass(pattern: string, start: number): [string, number] {
  let index = start + 1;
  const negated = pattern[index] === '^';
  if (negated) index += 1;
  let body = '';
  while (index < pattern.length && pattern[index] !== ']') {
    const [first, firstLength] = readClassAtom(pattern, index);
    index += firstLength;
    if (pattern[index] === '-' && pattern[index + 1] !== ']' && 'codePoint' in first) {
      const [last, lastLength] = readClassAtom(pattern, index + 1);
      if ('codePoint' in last) {
        body += `${hex(first.codePoint)}-${hex(last.codePoint)}`;
        index += 1 + lastLength;
        continue;
      }
    }
    body += 'codePoint' in first ? hex(first.codePoint) : first.inClass;
  }
  const length = index + 1 - start;
  // `[]` matches nothing and `[^]` anything; RE2 reads a `]` right after `[` as a literal.
  if (body === '') return [negated ? `[${hex(0)}-${hex(MAX_CODE_POINT)}]` : `[^${hex(0)}-${hex(MAX_CODE_POINT)}]`, length];
  return [`[${negated ? '^' : ''}${body}]`, length];
}

function readClassAtom(pattern: string, index: number): [Atom, number] {
  if (pattern[index] === '\\') {
    if (pattern[index + 1] === 'b') return [{ codePoint: 0x08 }, 2]; // backspace, inside a class
    return readEscape(pattern, index);
  }
  const codePoint = pattern.codePointAt(index)!;
  return [{ codePoint }, codePoint > 0xffff ? 2 : 1];
}

const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d };

/** The escape at `index` (a backslash); `[atom, length]`. */
function readEscape(pattern: string, index: number): [Atom, number] {
  const next = pattern[index + 1] ?? '';
  if (next in CONTROL_ESCAPES) return [{ codePoint: CONTROL_ESCAPES[next]! }, 2];
  switch (next) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
      return [{ alone: `\\${next}`, inClass: `\\${next}` }, 2]; // ASCII on both engines (no `i` flag)
    case 's':
      return [{ alone: `[${rangesText(WHITE_SPACE)}]`, inClass: rangesText(WHITE_SPACE) }, 2];
    case 'S':
      return [{ alone: `[^${rangesText(WHITE_SPACE)}]`, inClass: rangesText(complement(WHITE_SPACE)) }, 2];
    case 'p':
    case 'P':
      return readProperty(pattern, index);
    case 'c':
      return [{ codePoint: pattern.charCodeAt(index + 2) % 32 }, 3];
    case '0':
      return [{ codePoint: 0 }, 2];
    case 'x':
      return [{ codePoint: parseInt(pattern.slice(index + 2, index + 4), 16) }, 4];
    case 'u':
      return readUnicodeEscape(pattern, index);
    case 'k':
      throw new UnsupportedPattern(pattern, `the backreference ${pattern.slice(index, pattern.indexOf('>', index) + 1)} is not supported`);
    default:
      if (/[1-9]/.test(next)) throw new UnsupportedPattern(pattern, `the backreference \\${/^\d+/.exec(pattern.slice(index + 1))![0]} is not supported`);
      // An escaped syntax character (or `-` and `/`): itself.
      return [{ codePoint: pattern.codePointAt(index + 1)! }, 1 + (pattern.codePointAt(index + 1)! > 0xffff ? 2 : 1)];
  }
}

function readUnicodeEscape(pattern: string, index: number): [Atom, number] {
  if (pattern[index + 2] === '{') {
    const end = pattern.indexOf('}', index);
    return [{ codePoint: parseInt(pattern.slice(index + 3, end), 16) }, end - index + 1];
  }
  const unit = parseInt(pattern.slice(index + 2, index + 6), 16);
  // With `u`, an escaped surrogate pair is one code point.
  if (unit >= 0xd800 && unit <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(pattern.slice(index + 6, index + 12))) {
    const low = parseInt(pattern.slice(index + 8, index + 12), 16);
    return [{ codePoint: (unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000 }, 12];
  }
  return [{ codePoint: unit }, 6];
}

function readProperty(pattern: string, index: number): [Atom, number] {
  const negated = pattern[index + 1] === 'P';
  const end = pattern.indexOf('}', index);
  const written = pattern.slice(index, end + 1);
  const inner = pattern.slice(index + 3, end);
  const [name, value] = inner.includes('=') ? (inner.split('=') as [string, string]) : [undefined, inner];
  const length = end - index + 1;
  const p = negated ? 'P' : 'p';
  if (name === 'Script' || name === 'sc') return [{ alone: `\\${p}{${value}}`, inClass: `\\${p}{${value}}` }, length];
  if (name === undefined || name === 'General_Category' || name === 'gc') {
    const category = SHORT_CATEGORIES.has(value) ? value : GENERAL_CATEGORY[value];
    if (category !== undefined) return [{ alone: `\\${p}{${category}}`, inClass: `\\${p}{${category}}` }, length];
    if (value === 'Any') return [{ alone: `\\${p}{Any}`, inClass: `\\${p}{Any}` }, length];
    const ranges = value === 'ASCII' ? ASCII : value === 'ASCII_Hex_Digit' || value === 'AHex' ? ASCII_HEX_DIGIT : undefined;
    if (ranges !== undefined) {
      const members = negated ? complement(ranges) : ranges;
      return [{ alone: `[${rangesText(members)}]`, inClass: rangesText(members) }, length];
    }
  }
  throw new UnsupportedPattern(pattern, `the Unicode property ${written} is not supported (General_Category values, Script=, ASCII and Any are)`);
}

function complement(ranges: Ranges): Ranges {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [low, high] of ranges) {
    if (low > next) out.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

function rangesText(ranges: Ranges): string {
  return ranges.map(([low, high]) => (low === high ? hex(low) : `${hex(low)}-${hex(high)}`)).join('');
}

function hex(codePoint: number): string {
  return `\\x{${codePoint.toString(16)}}`;
}
