import { describe, expect, it } from 'vitest';
import { documentKeysMeeting, idSample, keysMeeting, meetsTooFew } from '../src/grounded-answer/id-keys.js';

const gold = new Set(['doc-retention', 'doc-limits', 'doc-billing']);

describe('keysMeeting', () => {
  it('ranks every string place by the distinct gold ids it meets, arrays as *', () => {
    const records = [
      {
        qid: 'q1',
        contexts: [
          {
            doc_id: '6513270e-8b5a-4c1e-9d55-0f5b0e8e1a11',
            source: 'doc-retention',
            metadata: { doc_id: 'doc-retention' },
          },
          {
            doc_id: '0c9a4f7e-1111-4c1e-9d55-0f5b0e8e1a11',
            source: 'doc-limits',
            metadata: { doc_id: 'doc-x' },
          },
        ],
        tags: ['doc-billing', 'doc-retention'],
      },
      { qid: 'q2', contexts: [{ doc_id: 'zz', source: 'doc-limits' }], tags: [] },
    ];
    expect(keysMeeting(records, gold)).toEqual([
      { key: '/contexts/*/source', meets: 2 },
      { key: '/tags/*', meets: 2 },
      { key: '/contexts/*/metadata/doc_id', meets: 1 },
    ]);
  });

  it('leaves out keys that keep the expected answer, and non-strings', () => {
    const records = [
      {
        reference_context_ids: ['doc-limits'],
        gold_citations: ['doc-billing'],
        n: 3,
        ids: ['doc-limits', 7],
      },
    ];
    expect(keysMeeting(records, gold)).toEqual([{ key: '/ids/*', meets: 1 }]);
  });

  it('escapes a key as a JSON Pointer does', () => {
    expect(keysMeeting([{ 'a/b': { '~c': 'doc-limits' } }], gold)).toEqual([{ key: '/a~1b/~0c', meets: 1 }]);
  });
});

describe('documentKeysMeeting', () => {
  it('names document.id and metadata keys dotted, as openinference.document_id reads them', () => {
    const docs = [
      {
        id: '6513270e-8b5a',
        metadata: { doc_id: 'doc-retention', file: { name: 'doc-limits' }, tags: ['doc-billing'] },
      },
      { id: 'doc-limits', metadata: { doc_id: 'doc-limits' } },
      { metadata: 'not an object' },
    ];
    expect(documentKeysMeeting(docs, gold)).toEqual([
      { key: 'metadata.doc_id', meets: 2 },
      { key: 'document.id', meets: 1 },
      { key: 'metadata.file.name', meets: 1 },
    ]);
  });
});

describe('meetsTooFew', () => {
  it('is under 5% of gold ids, and never for a gold set without ids', () => {
    expect(meetsTooFew(0, 20)).toBe(true);
    expect(meetsTooFew(0, 21)).toBe(true);
    expect(meetsTooFew(1, 21)).toBe(true); // 1/21 = 0.0476
    expect(meetsTooFew(1, 20)).toBe(false); // exactly 5%
    expect(meetsTooFew(0, 0)).toBe(false);
  });
});

describe('idSample', () => {
  it('shows the first distinct ids, a long one cut', () => {
    expect(idSample(['6513270e-8b5a-4c1e-9d55-0f5b0e8e1a11', '0c9a', 'x'])).toBe('6513270e-…, 0c9a, …');
    expect(idSample(['doc-retention', 'doc-retention'])).toBe('doc-retention');
  });
});
