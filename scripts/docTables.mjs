// Generates the README's tool, options and backends tables from the code (dist/), so they cannot
// drift: `node scripts/docTables.mjs --write` rewrites the marked sections; the docs test checks them.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function firstSentence(text) {
  const m = /^(.*?\.)(\s|$)/.exec(text);
  return (m ? m[1] : text).replaceAll('|', '\\|');
}

export async function toolTable() {
  const { allTools } = await import(join(root, 'dist/server/tools/index.js'));
  const { defaultConfig } = await import(join(root, 'dist/server/config.js'));
  const rows = allTools(defaultConfig()).map((t) => {
    const a = t.annotations;
    const traits = [
      a.readOnlyHint ? 'read-only' : '',
      a.destructiveHint ? 'destructive' : '',
      a.idempotentHint ? 'idempotent' : '',
    ]
      .filter(Boolean)
      .join(', ');
    const fields = Object.keys(t.input.shape)
      .map((f) => `\`${f}\``)
      .join(' ');
    return `| \`${t.name}\` | ${firstSentence(t.description)} | ${fields} | ${traits || '—'} |`;
  });
  return ['| tool | what it does | arguments | traits |', '|---|---|---|---|', ...rows].join('\n');
}

export async function optionsTable() {
  const { OPTIONS } = await import(join(root, 'dist/cli/options.js'));
  const rows = OPTIONS.map(
    (o) => `| \`${o.flag} ${o.value.replaceAll('|', '\\|')}\` | \`${o.env}\` | ${o.help.replaceAll('|', '\\|')} |`,
  );
  return ['| flag | environment variable | meaning |', '|---|---|---|', ...rows].join('\n');
}

const yes = (b) => (b ? 'yes' : '—');

/** What each backend can do, one column a backend, from the capabilities the tools read. */
export async function backendsTable() {
  const { backendKinds, capabilitiesOf } = await import(join(root, 'dist/backends/registry.js'));
  const kinds = backendKinds();
  const caps = kinds.map((k) => capabilitiesOf(k));
  const rows = [
    ['targets', (c) => c.targets.join(', ')],
    [
      'running backwards',
      (c) => ({ none: '—', recording: 'after record_start', always: 'always (replay)' })[c.reverse],
    ],
    ['recording', (c) => yes(c.record)],
    [
      'watchpoints',
      (c) =>
        c.watchpoints.length === 0
          ? '—'
          : `${c.watchpoints.join(', ')}${c.softwareWatchpoints ? '' : ' (hardware only: refused where the machine probe finds them dead)'}`,
    ],
    ['hardware breakpoints', (c) => yes(c.hardwareBreakpoints)],
    ['catchpoints', (c) => (c.catchEvents.length === 0 ? '—' : c.catchEvents.join(', '))],
    ['logpoints (dprintf)', (c) => yes(c.logpoints)],
    ['following forks', (c) => yes(c.forks)],
    ['sysroot', (c) => yes(c.sysroot)],
    ['saving a core', (c) => yes(c.saveCore)],
    ['function calls (--inferior-calls)', (c) => yes(c.inferiorCalls)],
    ['program terminal (dbg_io)', (c) => yes(c.programTerminal)],
    ['dbg_command language', (c) => c.rawDialect],
  ];
  return [
    `| | ${kinds.map((k) => `\`${k}\``).join(' | ')} |`,
    `|---|${kinds.map(() => '---').join('|')}|`,
    ...rows.map(([name, cell]) => `| ${name} | ${caps.map((c) => cell(c)).join(' | ')} |`),
  ].join('\n');
}

export function replaceSection(text, name, body) {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`README has no ${name} section markers`);
  return `${text.slice(0, a + begin.length)}\n${body}\n${text.slice(b)}`;
}

export async function renderReadme(text) {
  let out = replaceSection(text, 'tools', await toolTable());
  out = replaceSection(out, 'options', await optionsTable());
  out = replaceSection(out, 'backends', await backendsTable());
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = join(root, 'README.md');
  const text = readFileSync(path, 'utf8');
  const next = await renderReadme(text);
  if (process.argv.includes('--write')) writeFileSync(path, next);
  else process.stdout.write(next);
}
