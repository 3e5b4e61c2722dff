import { readFileSync } from 'node:fs';
import { parquetReadObjects, parquetMetadata } from 'hyparquet';
const b = readFileSync('/tmp/c60.parquet');
const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
const metadata = parquetMetadata(ab);
console.log('rows', metadata.num_rows, metadata.row_groups.map((g) => g.num_rows), metadata.schema.map(s=>s.name+':'+s.type));
for (const [a, e] of [[0, 16], [16, 32], [32, 40]]) {
  console.log('decode', a); 
  try { const r = await parquetReadObjects({ file: ab, metadata, rowStart: a, rowEnd: e }); console.log('ok', a, r.length); } catch (err) { console.log('err', a, err.message); }
}
