import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * An internal error's stack with each frame in one of our bundles pointed at src/, through the source map
 * beside the bundle. Node maps stacks itself only for code loaded after `--enable-source-maps` or
 * `process.setSourceMapsEnabled(true)`, so neither covers the bundle that calls it, and turning them on
 * before it loads would parse its map (2.3 MB) on every start for the rare run that fails.
 */
export function mappedStack(err: unknown): string {
  const stack = err instanceof Error ? (err.stack ?? String(err)) : String(err);
  const maps = new Map<string, SourceMap | null>();
  return stack.replace(
    /((?:file:\/\/)?\/[^\s()]+?\.js):(\d+):(\d+)/g,
    (frame, file: string, line, column) => {
      const bundle = file.startsWith('file:') ? fileURLToPath(file) : file;
      let map = maps.get(bundle);
      if (map === undefined) {
        map = readMap(bundle);
        maps.set(bundle, map);
      }
      const entry = map?.findEntry(Number(line) - 1, Number(column) - 1) as
        { originalSource?: string; originalLine: number; originalColumn: number } | undefined;
      // A generated column with no source (ncc's glue between modules) stays as it is.
      if (typeof entry?.originalSource !== 'string') return frame;
      const source = path.resolve(path.dirname(bundle), entry.originalSource);
      return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    },
  );
}

function readMap(bundle: string): SourceMap | null {
  try {
    return new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')));
  } catch {
    return null; // not one of ours, or shipped without its map: the frame stays as it is
  }
}
