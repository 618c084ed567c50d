// The raw-command allowlist against a real GDB 13, over MI with nothing of the backend between:
// every line the policy allows runs there (stopped in scale() of data.c, with may-write-memory and
// may-call-functions off, as the backend will run them), GDB resolves each
// abbreviation to the command the policy named, and GDB itself refuses the expressions that would
// write or call. rr's own commands are not run here: rr cannot record on this machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyGdbCommand } from '../../../src/backends/gdb/gdbRawPolicy.js';
import type { MiTuple } from '../../../src/protocols/mi/miRecords.js';
import { WAIT_MS } from '../../helpers/outcomes.js';
import { fixture } from '../../helpers/paths.js';
import { until } from '../../helpers/procfs.js';
import { type RawGdb, startRawGdb } from '../../helpers/rawGdb.js';
import { ALLOWED_GDB, REFUSED_GDB } from '../../helpers/rawPolicyCases.js';

let gdb: RawGdb;

/** GDB 13's help classes (`help`): `help WORD` also matches them, running WORD does not. */
const HELP_CLASSES = [
  'aliases',
  'breakpoints',
  'data',
  'files',
  'internals',
  'obscure',
  'running',
  'stack',
  'status',
  'support',
  'text-user-interface',
  'tracepoints',
  'user-defined',
];

beforeAll(async () => {
  gdb = await startRawGdb();
  await gdb.send('file-exec-and-symbols', [fixture('data')]);
  await gdb.send('break-insert', ['scale']);
  const since = gdb.execRecords.length;
  await gdb.send('exec-run');
  const stop = await gdb.nextStop(since);
  expect((stop.results['frame'] as MiTuple)['func']).toBe('scale');
  // Only once stopped, as the backend will around each raw command: set before the run, they keep
  // GDB from inserting breakpoints (see the last tests).
  for (const setting of ['may-write-memory off', 'may-call-functions off']) {
    await gdb.send('gdb-set', { raw: setting });
  }
}, 30_000);

afterAll(async () => {
  await gdb?.close();
});

/** A CLI line's outcome: GDB's error text, or its output. */
async function run(line: string): Promise<{ error?: string; output: string }> {
  try {
    const r = await gdb.cli(line);
    return { output: `${r.console}${r.log}` };
  } catch (e) {
    return { error: (e as Error).message, output: '' };
  }
}

describe('every allowed line runs on a real GDB', () => {
  it.each(ALLOWED_GDB)('%j', async (line) => {
    // Each line from the innermost frame, except the ones that move down, which need one above.
    const startFrame = /^\s*(down|do)\b/.test(line) ? '1' : '0';
    await gdb.send('stack-select-frame', [startFrame]);
    const { error, output } = await run(line);
    expect(error, `GDB refused ${JSON.stringify(line)}`).toBeUndefined();
    expect(output).not.toMatch(/Undefined (\w+ )?command|Ambiguous/);
  });
});

describe('GDB resolves each abbreviation to the command the policy named', () => {
  // `help WORDS` prints the documentation of the command WORDS names: the same text as for the
  // canonical name means the same command, hidden or deprecated commands included.
  const cases = ALLOWED_GDB.flatMap(([line]) => {
    const verdict = classifyGdbCommand(line, 'gdb');
    if (!verdict.allowed) return [];
    const depth = verdict.command.split(' ').length;
    const words = line
      .trim()
      .split(/[\s/]+/)
      .slice(0, depth)
      .join(' ');
    return words === verdict.command ? [] : [[words, verdict.command] as const];
  });
  const unique = [...new Map(cases.map((c) => [c[0], c])).values()];

  it('there are abbreviations to check', () => {
    expect(unique.length).toBeGreaterThan(20);
  });

  it.each(unique)('%j is %j', async (words, canonical) => {
    const typed = await run(`help ${words}`);
    const named = await run(`help ${canonical}`);
    expect(typed.error).toBeUndefined();
    expect(typed.output).toBe(named.output);
  });
});

describe('the escapes the policy names are what GDB would run', () => {
  // A refusal that names `X` for a line typed as WORD: GDB's help for WORD is X's, so the
  // abbreviation or alias in the unit table is a real way to reach X on this GDB.
  const cases = REFUSED_GDB.flatMap(([line, word]) => {
    const named = /^`([a-z-]+(?: [a-z-]+)?)`$/.exec(word)?.[1];
    const typed = line.trim().match(/^([!|]|[A-Za-z0-9_.+<>$-]+)(?:\s+([a-z-]+))?/);
    // `set` stands for the whole family in its reason; help classes make `help ali` ambiguous
    // (alias, aliases) where running `ali` is alias.
    if (
      named === undefined ||
      named === 'set' ||
      typed === null ||
      HELP_CLASSES.some((c) => c.startsWith(typed[1] as string))
    )
      return [];
    const one = typed[1] as string;
    const two = `${one} ${typed[2] ?? ''}`.trim();
    return one === named || two === named ? [] : [[one, two, named] as const];
  });
  const unique = [...new Map(cases.map((c) => [c[1], c])).values()];

  it('there are aliases and abbreviations of escapes to check', () => {
    expect(unique.length).toBeGreaterThan(15);
  });

  it.each(unique)('%j (or %j) is %j', async (one, two, canonical) => {
    const named = (await run(`help ${canonical}`)).output;
    // A one-word alias of a two-word command (`layout` for `tui layout`) or a command and its subcommand.
    const typed = [(await run(`help ${one}`)).output, (await run(`help ${two}`)).output];
    expect(typed).toContain(named);
  });

  it('this GDB has no convenience function beyond the read-only ones the policy lets through', async () => {
    const { output } = await run('help function');
    const names = [...output.matchAll(/^function (\S+) -- /gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      expect(classifyGdbCommand(`print $${name}(1)`, 'gdb'), name).toMatchObject({ allowed: true });
    }
  });
});

describe('source text through allowed commands: `source open off` keeps it behind the source roots', () => {
  // frame, up, down and disassemble /s print lines of the file the debug info names, which a
  // crafted program may point anywhere (#line 1 "/home/user/.ssh/id_rsa").
  const SOURCE = 'int product = v * factor;';

  it.each(['frame 0', 'up 0', 'disassemble /s scale'])(
    '%j prints source text with source open on, none with it off',
    async (line) => {
      await gdb.send('stack-select-frame', ['0']);
      expect((await run(line)).output).toContain(SOURCE);
      await gdb.send('gdb-set', { raw: 'source open off' });
      try {
        const { error, output } = await run(line);
        expect(error).toBeUndefined();
        expect(output).not.toContain(SOURCE);
        expect(output).toMatch(/22\tin data\.c/);
      } finally {
        await gdb.send('gdb-set', { raw: 'source open on' });
      }
    },
  );
});

describe("writes and calls in expressions: GDB 13.1's own refusals, behind the policy's", () => {
  it.each([
    ['print reads = 1', 'Writing to memory is not allowed (addr 0x'],
    ['print reads++', 'Writing to memory is not allowed (addr 0x'],
    ['print numbers[0] = 1', 'Writing to memory is not allowed (addr 0x'],
    ['print v = 1', 'Writing to memory is not allowed (addr 0x'],
  ])('%j: the policy refuses it, and GDB with may-write-memory off says %j', async (line, words) => {
    expect(classifyGdbCommand(line, 'gdb')).toMatchObject({ allowed: false });
    const before = await gdb.send('data-evaluate-expression', ['reads']);
    const { error } = await run(line);
    expect(error).toContain(words);
    expect((await gdb.send('data-evaluate-expression', ['reads'])).results).toEqual(before.results);
  });

  it.each([
    ['print scale(1, 2)', 'Cannot call functions in the program: may-call-functions is off.'],
    ['output scale(1, 2)', 'Cannot call functions in the program: may-call-functions is off.'],
    ['x/x scale(1, 2)', 'Cannot call functions in the program: may-call-functions is off.'],
  ])('%j: the policy leaves calls to GDB, which says %j', async (line, words) => {
    expect(classifyGdbCommand(line, 'gdb')).toMatchObject({ allowed: true });
    const { error } = await run(line);
    expect(error).toBe(words);
  });

  it('may-write-memory and may-call-functions can be switched while the program lives (so around each raw command)', async () => {
    await gdb.send('gdb-set', { raw: 'may-write-memory on' });
    await gdb.send('gdb-set', { raw: 'may-call-functions on' });
    expect((await run('show may-write-memory')).output).toBe('Permission to write into target memory is on.\n');
    await gdb.send('gdb-set', { raw: 'may-write-memory off' });
    await gdb.send('gdb-set', { raw: 'may-call-functions off' });
    expect((await run('show may-write-memory')).output).toBe('Permission to write into target memory is off.\n');
  });

  it('may-write-registers cannot: the policy alone keeps registers from being written', async () => {
    const { error } = await run('set may-write-registers on');
    expect(error).toBe('Cannot change this setting while the inferior is running.');
    expect(classifyGdbCommand('print $rax = 1', 'gdb')).toMatchObject({ allowed: false });
  });

  it('why not may-write-registers off from the start: GDB then cannot even stop at a breakpoint', async () => {
    const probe = await startRawGdb();
    try {
      await probe.send('file-exec-and-symbols', [fixture('data')]);
      await probe.send('gdb-set', { raw: 'may-write-registers off' });
      await probe.send('break-insert', ['scale']);
      const failure = await probe.send('exec-run').then(
        () => undefined,
        (e: Error) => e.message,
      );
      await until(
        () => /Writing to registers is not allowed/.test(`${failure ?? ''}${probe.streams()}`),
        'the refusal',
        WAIT_MS,
      );
    } finally {
      await probe.close();
    }
  });

  it('why not may-write-memory off from the start: GDB then cannot insert breakpoints', async () => {
    const probe = await startRawGdb();
    try {
      await probe.send('file-exec-and-symbols', [fixture('data')]);
      await probe.send('gdb-set', { raw: 'may-write-memory off' });
      await probe.send('break-insert', ['scale']);
      const failure = await probe.send('exec-run').then(
        () => undefined,
        (e: Error) => e.message,
      );
      const said = () => `${failure ?? ''}${probe.streams()}`;
      await until(() => /Cannot insert breakpoint 1/.test(said()), 'the refusal', WAIT_MS);
      expect(said()).toMatch(
        /Cannot insert breakpoint 1: Writing to memory is not allowed \(addr 0x[0-9a-f]+, len 1\)/,
      );
    } finally {
      await probe.close();
    }
  });
});
