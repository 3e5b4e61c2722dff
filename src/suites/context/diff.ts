/**
 * The lines a unified diff deletes, per file, numbered in the old file: where the patch says the code to
 * change is. Files are named by their `+++ b/` path as in the evaluator (`--- a/` for a deleted file).
 *
 * Hunk bodies are read by the line counts in their `@@ -a,b +c,d @@` header. The evaluator instead ends a
 * hunk at the first line starting with `---`, which is also how a deleted line whose text starts with `--`
 * looks (an SQL or Lua comment, a `---` YAML separator), and so loses those deletions (docs/metrics.md).
 */
export function deletedLines(diff: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const lines = diff.split('\n');
  let oldPath: string | undefined;
  let file: string | undefined;
  let oldLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (oldLeft > 0 || newLeft > 0) {
      const tag = line[0];
      if (tag === '-') {
        if (file !== undefined) push(out, file, oldLine);
        oldLine++;
        oldLeft--;
        continue;
      }
      if (tag === '+') {
        newLeft--;
        continue;
      }
      if (tag === ' ' || line === '') {
        // An empty line is a context line whose leading space was trimmed (editors, JSON round trips).
        oldLine++;
        oldLeft--;
        newLeft--;
        continue;
      }
      if (tag === '\\') continue; // "\ No newline at end of file"
      oldLeft = 0;
      newLeft = 0;
    }
    if (line.startsWith('diff ')) {
      oldPath = undefined;
      file = undefined;
    } else if (line.startsWith('--- ')) {
      oldPath = /^--- a\/(.+)$/.exec(line)?.[1];
    } else if (line.startsWith('+++ ')) {
      file = /^\+\+\+\s+b\/(.+)$/.exec(line)?.[1] ?? (line.startsWith('+++ /dev/null') ? oldPath : undefined);
    } else {
      const hunk = /^@@\s+-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s+@@/.exec(line);
      if (hunk) {
        oldLine = Number(hunk[1]);
        oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
        newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
      }
    }
  }
  return out;
}

function push(out: Map<string, number[]>, file: string, line: number): void {
  const list = out.get(file);
  if (list) list.push(line);
  else out.set(file, [line]);
}
