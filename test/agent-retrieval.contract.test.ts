import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { documentSchemaV1_0, TOOL_CATEGORIES } from '../src/suites/agent-retrieval/contract.js';
import { loadDocuments } from '../src/suites/agent-retrieval/load.js';
import { FIXTURES, tmpTree } from './helpers/tmp.js';

type Json = Record<string, unknown>;
const schema = JSON.parse(
  readFileSync(path.join(FIXTURES, 'csb', 'retrieval_events_schema.json'), 'utf8'),
) as Json;
const defs = schema.$defs as Record<string, Json>;

/** Peels optional / nullable / array wrappers off a zod schema. */
function core(s: z.ZodType): z.ZodType {
  const def = s._zod.def as { type: string; innerType?: z.ZodType; element?: z.ZodType };
  if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default')
    return core(def.innerType!);
  if (def.type === 'array') return core(def.element!);
  return s;
}
const shapeOf = (s: z.ZodType) => (core(s) as z.ZodObject).shape as Record<string, z.ZodType>;
const optional = (s: z.ZodType) => s.safeParse(undefined).success;

/** Property names, required names and enums of an object in the JSON Schema and in the zod contract. */
function compare(json: Json, zod: z.ZodType, extra: readonly string[] = []) {
  const shape = shapeOf(zod);
  const properties = json.properties as Record<string, Json>;
  expect(
    Object.keys(shape)
      .filter((k) => !extra.includes(k))
      .sort(),
  ).toEqual(Object.keys(properties).sort());
  expect(
    Object.keys(shape)
      .filter((k) => !optional(shape[k]!))
      .sort(),
  ).toEqual([...((json.required as string[] | undefined) ?? [])].sort());
  for (const [key, property] of Object.entries(properties)) {
    if (Array.isArray(property.enum)) {
      const values = (property.enum as unknown[]).filter((v) => v !== null);
      expect((core(shape[key]!) as z.ZodEnum).options).toEqual(values);
      expect(shape[key]!.safeParse(null).success).toBe(property.enum.includes(null));
    }
  }
}

describe('the event-document contract equals retrieval_events_schema.json v1.0', () => {
  it('has the same fields, required fields and enums, plus the expected_edit_files extension', () => {
    const shape = documentSchemaV1_0.shape;
    compare(schema, documentSchemaV1_0);
    compare(defs.provenance!, shape.provenance);
    compare(defs.coverage!, shape.coverage);
    compare(defs.ground_truth!, shape.ground_truth, [
      'expected_edit_files',
      'expected_edit_files_source',
      'expected_edit_files_confidence',
    ]);
    compare(defs.ground_truth_symbol!, shapeOf(shape.ground_truth).symbols!);
    compare(defs.ground_truth_chunk!, shapeOf(shape.ground_truth).chunks!);
    compare(defs.retrieval_event!, shape.events);
    compare(defs.event_summary!, shape.summary);
    expect(TOOL_CATEGORIES).toEqual(
      (defs.retrieval_event!.properties as Record<string, Json>).tool_category!.enum,
    );
  });
});

/** A minimal valid 1.0 document, as JSON text with one key per line (so errors have distinct lines). */
function documentText(change: (doc: Json) => void = () => {}): string {
  const doc: Json = {
    schema_version: '1.0',
    generated_at: '2026-03-01T00:00:00Z',
    provenance: { run_id: 'r', task_name: 't', config_name: 'c', benchmark: 'b' },
    coverage: {
      has_trajectory: true,
      has_transcript: false,
      has_ground_truth: true,
      trace_source: 'trajectory',
      degraded_reason: null,
    },
    ground_truth: { files: ['a.go'] },
    events: [
      {
        step_index: 0,
        timestamp: null,
        tool_name: 'Read',
        tool_category: 'file_read',
        is_mcp: false,
        target_files: ['a.go'],
      },
    ],
  };
  change(doc);
  return JSON.stringify(doc, null, 2);
}

function load(text: string) {
  const dir = tmpTree({ 'doc.retrieval_events.json': text });
  return () => loadDocuments([path.join(dir, 'doc.retrieval_events.json')]);
}

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message.replace(/^.*doc\.retrieval_events\.json/, 'doc.json');
  }
  throw new Error('expected an error');
}

describe('loading event documents', () => {
  it('reads a minimal 1.0 document', () => {
    const [loaded] = load(documentText())();
    expect(loaded!.doc.events[0]!.tool_name).toBe('Read');
  });

  it('reads 1.0 documents with the expected_edit_files keys real producers write', () => {
    const text = documentText((d) => {
      d.ground_truth = {
        files: ['a.go'],
        expected_edit_files: ['a.go'],
        expected_edit_files_source: 'patch',
        expected_edit_files_confidence: 'high',
      };
    });
    expect(load(text)()[0]!.doc.ground_truth.expected_edit_files).toEqual(['a.go']);
  });

  it('reads a later minor version and ignores the optional fields it adds', () => {
    const text = documentText((d) => {
      d.schema_version = '1.3';
      d.run_notes = 'added in 1.3';
      (d.events as Json[])[0]!.confidence = 0.9;
    });
    const doc = load(text)()[0]!.doc as Json;
    expect(doc.run_notes).toBeUndefined();
    expect((doc.events as Json[])[0]!.confidence).toBeUndefined();
  });

  it('rejects an unknown major version with a clear error', () => {
    expect(message(load(documentText((d) => (d.schema_version = '2.0'))))).toBe(
      'doc.json:2:21: schema_version "2.0" has unknown major version 2; expected 1.x (groundgate reads retrieval-event schema 1.0 and its minor revisions)',
    );
    expect(message(load(documentText((d) => delete d.schema_version)))).toBe(
      'doc.json:1:1: field "schema_version": found undefined; expected a version string such as "1.0"',
    );
  });

  it('rejects a key the 1.0 schema does not have, at its line', () => {
    const text = documentText((d) => ((d.events as Json[])[0]!.hits_ground_trth = true));
    expect(message(load(text))).toBe(
      'doc.json:23:5: field "events[0]": Unrecognized key: "hits_ground_trth" (a retrieval-event document (schema 1.x))',
    );
  });

  it('names the line and column of a bad value, a missing field and bad JSON', () => {
    const badEnum = documentText((d) => ((d.events as Json[])[0]!.tool_category = 'search'));
    expect(message(load(badEnum))).toMatch(
      /^doc\.json:27:24: field "events\[0\]\.tool_category": expected one of "file_read"\|.*\(a retrieval-event document \(schema 1\.x\)\)$/,
    );
    const missing = documentText((d) => delete (d.coverage as Json).trace_source);
    expect(message(load(missing))).toBe(
      'doc.json:10:15: missing field "coverage.trace_source" (a retrieval-event document (schema 1.x)); expected one of "trajectory"|"transcript"|"merged"',
    );
    expect(message(load('{\n  "schema_version": "1.0",\n  "events": [,]\n}'))).toBe(
      "doc.json:3:14: invalid JSON: unexpected token ','; expected a retrieval-event document (schema 1.x)",
    );
  });

  it('names where JSON nested 200,000 deep ends, without overflowing the stack', () => {
    expect(message(load('['.repeat(200_000)))).toBe(
      'doc.json:1:200001: invalid JSON: unexpected end of line; expected a retrieval-event document (schema 1.x)',
    );
  });

  it('checks dates and integers', () => {
    expect(message(load(documentText((d) => (d.generated_at = 'yesterday'))))).toBe(
      'doc.json:3:19: field "generated_at": expected an ISO 8601 date-time with a time zone (a retrieval-event document (schema 1.x))',
    );
    expect(message(load(documentText((d) => ((d.events as Json[])[0]!.step_index = 1.5))))).toMatch(
      /^doc\.json:24:21: field "events\[0\]\.step_index": expected int/,
    );
  });
});
