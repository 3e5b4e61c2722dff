/**
 * A gold path made repository-relative: the benchmark's container prefixes `/testbed/` and
 * `/workspace/<dir>/` go, then leading `/`s and `./` prefixes. (The evaluator strips the *characters*
 * `.` and `/` instead, turning `.github/x` into `github/x`: see docs/metrics.md.)
 */
export function normalizeGoldPath(file: string): string {
  let p = file.replaceAll('\\', '/');
  if (p.startsWith('/testbed/')) return p.slice('/testbed/'.length);
  if (p.startsWith('/workspace/')) {
    const rest = p.slice('/workspace/'.length);
    const slash = rest.indexOf('/');
    return slash === -1 ? rest : rest.slice(slash + 1);
  }
  for (;;) {
    if (p.startsWith('/')) p = p.slice(1);
    else if (p.startsWith('./')) p = p.slice(2);
    else return p;
  }
}

/**
 * The repository-relative paths a predicted path may mean, longest first: the path itself, then with
 * leading components dropped one at a time (`/testbed/pkg/a.py` → `testbed/pkg/a.py`, `pkg/a.py`, `a.py`).
 * The first that names a file of the checkout is the one the evaluator takes.
 */
export function candidatePaths(predicted: string): string[] {
  let p = cleanPath(predicted);
  while (p.startsWith('./')) p = p.slice(2);
  const parts = p.split('/').filter((part) => part !== '');
  return parts.map((_, i) => parts.slice(i).join('/'));
}

/** Surrounding whitespace and quotes off (Python's `strip().strip("'\"")`), `/` separators. */
export function cleanPath(p: string): string {
  return p
    .trim()
    .replace(/^['"]+|['"]+$/g, '')
    .replaceAll('\\', '/');
}
