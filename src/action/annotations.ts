import path from 'node:path';
import type { AnnotationProperties } from '@actions/core';
import { formatNumber, formatThreshold } from '../report/format.js';
import type { Report } from '../report/schema.js';

/** GitHub shows at most 10 annotations of each level per step; more are dropped silently. */
export const ANNOTATIONS_PER_LEVEL = 10;

export interface Annotation {
  level: 'error' | 'warning';
  message: string;
  properties: AnnotationProperties;
}

/**
 * Failed gates point at their line in gates.yaml; offenders at their line in the gold file. Paths are
 * relative to the workspace (the repository root), as the annotation API wants them.
 */
export function annotationsFor(report: Report, configFile: string, workspace: string): Annotation[] {
  const configDir = path.dirname(configFile);
  const rel = (abs: string) => path.relative(workspace, abs).split(path.sep).join('/');
  const errors: Annotation[] = report.gates
    .filter((g) => !g.passed)
    .slice(0, ANNOTATIONS_PER_LEVEL)
    .map((g) => ({
      level: 'error',
      message: `groundgate: ${g.suite}.${g.metric} = ${g.value === null ? 'n/a' : formatNumber(g.value)}, wanted ${formatThreshold(g)}${g.reason ? ` (${g.reason})` : ''}`,
      properties: { title: `gate failed: ${g.suite}.${g.metric}`, file: rel(configFile), startLine: g.line },
    }));
  const warnings: Annotation[] = [];
  for (const [name, suite] of Object.entries(report.suites)) {
    for (const o of suite.offenders) {
      if (warnings.length >= ANNOTATIONS_PER_LEVEL) break;
      if (!o.source) continue;
      warnings.push({
        level: 'warning',
        message: `${oneLine(o.id)}: ${o.labels.join(', ')}`,
        properties: {
          title: `groundgate offender (${name})`,
          file: rel(path.resolve(configDir, o.source.file)),
          startLine: o.source.line,
        },
      });
    }
  }
  return [...errors, ...warnings];
}

function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').slice(0, 200);
}
