/**
 * Container roots agents see the repository under (Harbor's /workspace, CSB's /repo_full, SWE-bench's
 * /testbed); `workspace/` too, as the reference normalizer strips it.
 */
const ROOTS = ['/workspace/', '/repo_full/', '/testbed/', 'workspace/'];

/**
 * A path as the seed matches them: a leading `./`, then a container root or else a diff `a/` or `b/`
 * prefix stripped, no leading or trailing `/`, lowercased. Ground truth and target files go through the same
 * function, so `/workspace/Internal/X.go`, `b/internal/x.go` and `internal/x.go` are the same file.
 */
export function normalizePath(raw: string): string {
  let p = raw.trim().replace(/\\/g, '/');
  while (p.startsWith('./')) p = p.slice(2);
  if (ROOTS.includes(`${p}/`)) return '';
  const root = ROOTS.find((r) => p.startsWith(r));
  if (root) p = p.slice(root.length);
  // A diff prefix never follows a container root: /workspace/a/x.go is in a folder named "a".
  else if (p.startsWith('a/') || p.startsWith('b/')) p = p.slice(2);
  return p.replace(/^\/+|\/+$/g, '').toLowerCase();
}

/** Names of files that usually have no extension. */
const BARE_FILES = new Set([
  'makefile',
  'dockerfile',
  'license',
  'readme',
  'gemfile',
  'rakefile',
  'procfile',
  'jenkinsfile',
  'vagrantfile',
  'owners',
  'codeowners',
]);

/**
 * Whether a normalized path found in tool output (a Glob line, a Grep line, an MCP `"path"`) names a
 * file rather than a directory, a pattern or prose: no spaces or glob characters, and a last segment with
 * an extension or a well-known extensionless name.
 */
export function looksLikeFile(p: string): boolean {
  if (p === '' || /[\s*?<>|"]/.test(p) || p.includes('://')) return false;
  const base = p.slice(p.lastIndexOf('/') + 1);
  return /^\.?[^./][^/]*\.[a-z0-9_+-]{1,12}$/.test(base) || BARE_FILES.has(base);
}

/** The folder part of a normalized path ("" for a file at the root). */
export function dirname(p: string): string {
  const i = p.lastIndexOf('/');
  return i === -1 ? '' : p.slice(0, i);
}
