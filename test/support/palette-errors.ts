import assert from 'node:assert/strict';
import { McpPaletteError } from '../../lib/core/errors.js';

/** The stable code of the McpPaletteError that `fn` throws; fails the test when it throws nothing or something else. */
export function paletteCode(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof McpPaletteError, `expected a McpPaletteError, got ${String(error)}`);
    return error.code;
  }
  assert.fail('expected a McpPaletteError');
}
