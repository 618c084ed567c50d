// Formats benchmark rows as one plain-text table. A row is
// { name, mbPerSec, target, ratioToJsonParse, pass } plus optional display overrides:
// `measured` and `targetText` (strings) for rows that are not a throughput.

function cells(row) {
  return [
    row.name,
    row.measured ?? `${row.mbPerSec.toFixed(1)} MB/s`,
    row.targetText ?? `≥ ${row.target} MB/s`,
    typeof row.ratioToJsonParse === 'number' ? `${row.ratioToJsonParse.toFixed(2)}× JSON.parse` : '—',
    row.pass ? 'pass' : 'FAIL',
  ];
}

export function formatBenchTable(rows) {
  const header = ['name', 'measured', 'target', 'ratio to reference', 'pass'];
  const body = rows.map(cells);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}
