/**
 * Files a unified diff touches, in order of appearance: `diff --git a/X b/Y` and `+++ b/Y` name Y (the
 * file after the change), `--- a/X` names X (which catches deleted files, whose `+++` is /dev/null).
 */
export function filesFromPatch(text: string): string[] {
  const files: string[] = [];
  const add = (p: string) => {
    const path = p.split('\t')[0]!.trim();
    if (path !== '' && path !== '/dev/null' && !files.includes(path)) files.push(path);
  };
  for (const line of text.split(/\r?\n/)) {
    const git = /^diff --git a\/(\S+) b\/(\S+)\s*$/.exec(line);
    if (git) add(git[2]!);
    const plus = /^\+\+\+ b\/(.+)$/.exec(line);
    if (plus) add(plus[1]!);
    const minus = /^--- a\/(.+)$/.exec(line);
    if (minus) add(minus[1]!);
  }
  return files;
}

/**
 * Repository paths mentioned in prose or a script (instruction.md, tests/test.sh): at least one folder and
 * a file extension, optionally under a container root; not inside a URL or an absolute system path (the
 * character before must be a space, a quote, a bracket or the line start), not under node_modules, not a
 * lock file.
 */
const MENTIONED_PATH =
  /(?:^|[\s`"'([])((?:\/(?:workspace|repo_full|testbed)\/)?[A-Za-z0-9_][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.-]+)+\.[A-Za-z][A-Za-z0-9]{0,9})(?=$|[\s`"'):,;#\]])/gm;

export function pathsFromText(text: string): string[] {
  const paths: string[] = [];
  for (const m of text.matchAll(MENTIONED_PATH)) {
    const p = m[1]!;
    if (p.includes('node_modules/') || p.includes('.lock') || paths.includes(p)) continue;
    paths.push(p);
  }
  return paths;
}
