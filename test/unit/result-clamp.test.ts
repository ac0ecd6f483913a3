import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { clampResult, TRUNCATION_META_KEY } from '../../lib/mcp/result-clamp.js';

const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('clampResult', () => {
  it('leaves a result under the limit untouched (same object)', () => {
    const result: CallToolResult = { content: [{ type: 'text', text: 'small' }] };
    assert.equal(clampResult(result, 1024), result);
  });

  it('shortens a huge text to fit, as whole JSON, and says so', () => {
    const result: CallToolResult = { content: [{ type: 'text', text: 'x'.repeat(200_000) }] };
    const clamped = clampResult(result, 10_000);
    assert.ok(size(clamped) <= 10_000, `size ${size(clamped)}`);
    const first = clamped.content[0] as { text: string };
    assert.match(first.text, /^x+… \[\d+ more characters\]$/);
    const note = clamped.content.at(-1) as { text: string };
    assert.match(note.text, /was \d+ bytes and has been shortened to fit the 10000-byte limit/);
    assert.deepEqual(clamped._meta?.[TRUNCATION_META_KEY], { originalBytes: size(result), limitBytes: 10_000 });
  });

  it('cuts long arrays and strings inside structured content, keeping its shape', () => {
    const rows = Array.from({ length: 50_000 }, (_, i) => ({ id: i, name: `row ${i}`, note: 'n'.repeat(100) }));
    const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify({ rows }) }], structuredContent: { rows, total: rows.length } };
    const clamped = clampResult(result, 64 * 1024);
    assert.ok(size(clamped) <= 64 * 1024, `size ${size(clamped)}`);
    const structured = clamped.structuredContent as { rows: Array<{ id: number }>; total: number };
    assert.ok(Array.isArray(structured.rows) && structured.rows.length > 0 && structured.rows.length < rows.length);
    assert.equal(structured.total, 50_000);
    assert.equal(structured.rows[0]!.id, 0);
    // Every value is whole: re-serialising gives the same JSON.
    assert.deepEqual(JSON.parse(JSON.stringify(clamped)), clamped);
  });

  it('empties binary data that cannot be shortened instead of corrupting it', () => {
    const result: CallToolResult = { content: [{ type: 'image', data: 'A'.repeat(100_000), mimeType: 'image/png' }] };
    const clamped = clampResult(result, 4096);
    assert.ok(size(clamped) <= 4096);
    assert.equal((clamped.content[0] as { data: string }).data, '');
  });

  it('shortens a field of the tool\'s own data that happens to be called data or blob, like any text', () => {
    const result: CallToolResult = { content: [], structuredContent: { data: 'd'.repeat(100_000), blob: 'b'.repeat(100_000) } };
    const clamped = clampResult(result, 4096);
    assert.ok(size(clamped) <= 4096);
    const structured = clamped.structuredContent as { data: string; blob: string };
    assert.match(structured.data, /^d+… \[\d+ more characters\]$/);
    assert.match(structured.blob, /^b+… \[\d+ more characters\]$/);
  });

  it('keeps shrinking lists of content until the result fits a tight limit', () => {
    const result: CallToolResult = { content: Array.from({ length: 10 }, () => ({ type: 'text' as const, text: 'y'.repeat(1000) })) };
    const clamped = clampResult(result, 400);
    assert.ok(size(clamped) <= 400, `size ${size(clamped)}`);
    assert.ok(clamped.content.length < result.content.length);
    assert.match((clamped.content.at(-1) as { text: string }).text, /shortened/);
  });

  it('returns only the note when even the smallest cut does not fit', () => {
    const result: CallToolResult = { content: [{ type: 'text', text: 'z'.repeat(5000) }], structuredContent: { big: 'q'.repeat(5000) } };
    const clamped = clampResult(result, 300);
    assert.ok(size(clamped) <= 300, `size ${size(clamped)}`);
    assert.equal(clamped.content.length, 1);
    assert.equal(clamped.structuredContent, undefined);
  });
});
