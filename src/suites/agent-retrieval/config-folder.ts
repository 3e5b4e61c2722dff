import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ScoreContext } from '../types.js';

const onlyParents = (rel: string) => rel === '' || rel.split('/').every((s) => s === '..');

/**
 * The folder of gates.yaml, which `runs`, `tasks` and `artifacts` are relative to. ScoreContext resolves
 * input files, not folders, but `ctx.relative` maps exactly that folder to "": it is found among the
 * ancestors of the inputs and of the working directory, else by walking down from the root through the
 * one child that is still its ancestor (relative to it, an ancestor is only "..").
 */
export function configFolder(ctx: ScoreContext): string {
  const starts = [
    ...Object.values(ctx.inputs)
      .flat()
      .map((f) => path.dirname(f)),
    process.cwd(),
  ];
  for (const start of starts) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      if (ctx.relative(dir) === '') return dir;
      if (path.dirname(dir) === dir) break;
    }
  }
  let dir = path.parse(process.cwd()).root;
  while (ctx.relative(dir) !== '') {
    let entries: string[];
    try {
      entries = readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch {
      break;
    }
    const next = entries.map((e) => path.join(dir, e)).find((d) => onlyParents(ctx.relative(d)));
    if (!next) break;
    dir = next;
  }
  if (ctx.relative(dir) !== '') throw new Error('cannot locate the folder of the gates file');
  return dir;
}
