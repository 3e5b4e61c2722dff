import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the running copy of groundgate, the one holding docs/: one or two folders above the bundles
 * (dist/index.js, dist/cli/index.js, dist/qa-worker/index.js) or above src/ and lib/ modules.
 */
function packageRoot(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return [here, path.dirname(here), path.dirname(path.dirname(here))].find((dir) =>
    existsSync(path.join(dir, 'docs', 'metrics.md')),
  );
}

let root: string | undefined | null = null;

/**
 * A shipped document (`docs/statistics.md`) named as the user can open it from where groundgate runs: the
 * installed package's copy relative to the working folder (`node_modules/groundgate/docs/statistics.md`
 * after npm install, `docs/statistics.md` in groundgate's own repository). A copy outside the working folder
 * (a global install, the Action's own checkout) is named by the package, never by a machine's absolute
 * path, so that report.json does not depend on where the package sits.
 */
export function docRef(doc: `docs/${string}` | 'BENCHMARKS.md', cwd = process.cwd()): string {
  if (root === null) root = packageRoot();
  if (root !== undefined) {
    const relative = path.relative(cwd, path.join(root, doc));
    if (!relative.startsWith('..') && !path.isAbsolute(relative)) return relative.split(path.sep).join('/');
  }
  return `groundgate's ${doc}`;
}
