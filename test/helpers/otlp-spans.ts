// OTLP/JSON export lines made by hand for unit tests: spans given as plain attributes and millisecond times.
// (Fixtures of what real libraries write are under test/fixtures/openinference/ and test/fixtures/shapes/.)

/** A list of objects is written as an arrayValue of kvlistValues (the structured form OTLP JSON allows). */
export type AttributeValue =
  string | number | boolean | readonly string[] | readonly Readonly<Record<string, string | number>>[];

export interface SpanSpec {
  id: number;
  parent?: number;
  name?: string;
  start: number;
  end: number;
  attributes: Record<string, AttributeValue>;
}

/** An attribute as OTLP/JSON writes it: an AnyValue, int64s as digits in a string, arrays as arrayValue. */
function anyValue(v: AttributeValue): unknown {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  return {
    arrayValue: {
      values: v.map((x: string | Readonly<Record<string, string | number>>) =>
        typeof x === 'string'
          ? { stringValue: x }
          : {
              kvlistValue: {
                values: Object.entries(x).map(([key, value]) => ({ key, value: anyValue(value) })),
              },
            },
      ),
    },
  };
}

/** One OTLP/HTTP JSON request body holding trace `n`'s spans (trace and span ids made from n and each id). */
export function otlpLine(n: number, spans: readonly SpanSpec[]): string {
  const traceId = n.toString(16).padStart(32, '0');
  const spanId = (id: number) => (n * 256 + id).toString(16).padStart(16, '0');
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [] },
        scopeSpans: [
          {
            scope: { name: 'groundgate-tests' },
            spans: spans.map((s) => ({
              traceId,
              spanId: spanId(s.id),
              ...(s.parent === undefined ? {} : { parentSpanId: spanId(s.parent) }),
              name: s.name ?? `span ${s.id}`,
              kind: 1,
              startTimeUnixNano: `${s.start}000000`,
              endTimeUnixNano: `${s.end}000000`,
              attributes: Object.entries(s.attributes).map(([key, value]) => ({
                key,
                value: anyValue(value),
              })),
            })),
          },
        ],
      },
    ],
  });
}
