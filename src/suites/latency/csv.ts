/** One field of a CSV line and the 1-based column where it starts, for error messages. */
export interface CsvField {
  value: string;
  column: number;
}

export interface CsvSyntaxError {
  column: number;
  reason: string;
}

/**
 * Splits one line of RFC 4180 CSV: fields separated by commas, a field in double quotes may hold commas
 * and `""` for a quote (Python's csv module writes the knobs column that way). Fields cannot span lines.
 *
 * Why not csv-parse (a devDependency; issue #46 weighed it): its records carry no field's position on the
 * line, and its errors name a field's index, not the character column of the field that is wrong, while
 * every error here names file:line:column (test/latency.test.ts pins them, e.g. `l.csv:2:16: unterminated
 * quoted field`). It is also slower on 200k latency rows (2026-11-28, one process, median of 3): 5.2× this
 * function's time parsing the whole text at once, 25× parsing line by line as the loader reads them.
 */
export function splitCsvLine(text: string): CsvField[] | CsvSyntaxError {
  const fields: CsvField[] = [];
  let i = 0;
  for (;;) {
    const column = i + 1;
    if (text[i] === '"') {
      let value = '';
      let from = i + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote === -1) {
          return {
            column,
            reason:
              'unterminated quoted field; expected a closing " on the same line (fields cannot span lines)',
          };
        }
        value += text.slice(from, quote);
        if (text[quote + 1] !== '"') {
          i = quote + 1;
          break;
        }
        value += '"';
        from = quote + 2;
      }
      if (i < text.length && text[i] !== ',') {
        return {
          column: i + 1,
          reason: `found ${JSON.stringify(text[i])} after a closing quote; expected "," or the end of the line`,
        };
      }
      fields.push({ value, column });
    } else {
      const comma = text.indexOf(',', i);
      const end = comma === -1 ? text.length : comma;
      const value = text.slice(i, end);
      const stray = value.indexOf('"');
      if (stray !== -1) {
        return {
          column: i + stray + 1,
          reason:
            'found a quote inside an unquoted field; expected the whole field in quotes, with "" for a quote',
        };
      }
      fields.push({ value, column });
      i = end;
    }
    if (i >= text.length) return fields;
    i++;
  }
}
