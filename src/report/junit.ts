import { escapeXml } from './escape.js';
import { formatNumber, formatThreshold } from './format.js';
import type { Report } from './schema.js';

/** One <testsuite> per groundgate suite, one <testcase> per gate check: what test dashboards understand. */
export function renderJunit(report: Report): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const failures = report.gates.filter((g) => !g.passed).length;
  out.push(`<testsuites name="groundgate" tests="${report.gates.length}" failures="${failures}">`);
  for (const name of Object.keys(report.suites)) {
    const gates = report.gates.filter((g) => g.suite === name);
    const failed = gates.filter((g) => !g.passed).length;
    const skipped = gates.filter((g) => g.skipped).length;
    out.push(
      `  <testsuite name="${escapeXml(name)}" tests="${gates.length}" failures="${failed}" skipped="${skipped}">`,
    );
    for (const g of gates) {
      const caseName = escapeXml(`${g.metric} ${formatThreshold(g)}`);
      const value = g.value === null ? 'n/a' : formatNumber(g.value);
      if (g.skipped) {
        out.push(
          `    <testcase classname="${escapeXml(name)}" name="${caseName}"><skipped message="${escapeXml(g.reason ?? '')}"/></testcase>`,
        );
      } else if (g.passed) {
        out.push(`    <testcase classname="${escapeXml(name)}" name="${caseName}"/>`);
      } else {
        const message = `${g.metric} = ${value}, wanted ${formatThreshold(g)}${g.reason ? ` (${g.reason})` : ''}`;
        out.push(`    <testcase classname="${escapeXml(name)}" name="${caseName}">`);
        out.push(`      <failure message="${escapeXml(message)}" type="gate"/>`);
        out.push('    </testcase>');
      }
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}
