// Formats benchmark rows as one plain-text table. A row is
// { name, measured, target, ratio, pass }: `measured`, `target` and `ratio` are display strings
// (ratio: against the reference measured in the same run, or '—' where there is none).

function cells(row) {
  return [row.name, row.measured, row.target, row.ratio ?? '—', row.pass ? 'pass' : 'FAIL'];
}

export function formatBenchTable(rows) {
  const header = ['benchmark', 'measured', 'target', 'against the reference', 'pass'];
  const body = rows.map(cells);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}
