#!/usr/bin/env node
// Huge data stays bounded: a program printing 50 MB, a 1 MiB string, a 100,000-frame recursion and
// a 16 MiB memory read. Every answer must stay inside the answer budget; each huge case is timed
// against a small twin doing the same call on small data (or, for the 50 MB run, against gdb
// running the program on a terminal), so the time must follow the budget, not the data; and the
// server's peak RSS over the whole group stays under 200 MB.
//
//   npm run build && node bench/hugeDataBench.mjs

import { pathToFileURL } from 'node:url';
import {
  buildFixtures,
  fixture,
  interleave,
  markerLocation,
  mb,
  median,
  memoryOf,
  ms,
  ok,
  startServer,
  timeProcess,
} from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

const OUTPUT_BYTES = 50 * 1024 * 1024;
const TEXT_BUDGET = 16384; // the server's default --answer-budget
const RESULT_MAX = 64 * 1024; // the whole result: text plus structured content
/** A huge case may take at most this many times its small twin. */
const TWIN_RATIO = 2;
/** The 50 MB run against gdb running the same program on a terminal. */
const OUTPUT_RATIO = 1.3;
const RSS_MAX = 200 * 1024 * 1024;
const REPEAT = 40;

export async function runHugeDataBench() {
  await buildFixtures();
  const server = await startServer();
  const oversize = [];
  /** Every answer is checked against the budget as it arrives. */
  const call = async (tool, args, what = tool) => {
    const answer = await server.call(tool, args);
    if (answer.text.length > TEXT_BUDGET || answer.size > RESULT_MAX) {
      oversize.push(`${what}: ${answer.text.length} chars of text, ${answer.size} bytes in all`);
    }
    return answer;
  };
  const start = async (args, what) => ok(await call('dbg_start', args, what), what);
  const close = (answer) => call('dbg_close', { session_id: answer.data.session_id });
  /** Median times of `huge` and `small`, called REPEAT times each, taking turns. */
  const twins = async (huge, small) => {
    await huge();
    await small();
    const { a, b } = await interleave(REPEAT / 2, huge, small);
    return { huge: median(a), small: median(b), ratio: median(a) / median(b) };
  };
  const rows = [];
  try {
    // 50 MB of output: the program's run cannot be faster than its terminal takes the bytes, so
    // the reference is gdb running it on a terminal too (script(1) gives it one).
    const noisy = fixture('noisy');
    const runs = { a: [], b: [] };
    let printed;
    const ours = async () => {
      printed = await start({ program: noisy, args: [String(OUTPUT_BYTES)] }, 'dbg_start 50 MB');
      if (printed.data.outcome?.kind !== 'exited') throw new Error(`50 MB run: ${printed.text.slice(0, 300)}`);
      return [printed.ms];
    };
    const onTerminal = async () => {
      const gdb = `gdb -nx -q -batch -ex run --args ${noisy} ${OUTPUT_BYTES}`;
      return [(await timeProcess('script', ['-qefc', gdb, '/dev/null'])).ms];
    };
    for (let i = 0; i < 2; i++) {
      if (i > 0) await close(printed);
      runs.a.push(...(await ours()));
      runs.b.push(...(await onTerminal()));
    }
    const outputRatio = median(runs.a) / median(runs.b);
    rows.push({
      name: '50 MB printed: dbg_start to the exit',
      measured: `${ms(median(runs.a))}, ${printed.text.length} chars`,
      target: `≤ ${OUTPUT_RATIO}× gdb on a terminal`,
      ratio: `${outputRatio.toFixed(2)}× gdb -batch run under script(1) (${ms(median(runs.b))})`,
      pass: outputRatio <= OUTPUT_RATIO,
    });

    // Reading the output back after 50 MB, against the same read after 16 KiB.
    const little = await start({ program: noisy, args: ['16384'] }, 'dbg_start 16 KiB');
    const read = (session) => async () => [
      ok(await call('dbg_io', { session_id: session.data.session_id, action: 'read', cursor: 0 }), 'dbg_io').ms,
    ];
    const reads = await twins(read(printed), read(little));
    rows.push({
      name: 'dbg_io read at cursor 0 after 50 MB',
      measured: ms(reads.huge),
      target: `≤ ${TWIN_RATIO}× after 16 KiB`,
      ratio: `${reads.ratio.toFixed(2)}× after 16 KiB (${ms(reads.small)})`,
      pass: reads.ratio <= TWIN_RATIO,
    });
    await close(printed);
    await close(little);

    // A 1 MiB string behind a pointer and in an array, against 256-byte ones: both are longer
    // than GDB prints (200 characters), so the twin does the same work unless size leaks in.
    const strings = await start(
      { program: fixture('bigstring'), breakpoints: [{ location: markerLocation('bigstring.c', 'stop') }] },
      'dbg_start bigstring',
    );
    const evaluate = (expressions) => async () => {
      const answer = ok(
        await call('dbg_evaluate', { session_id: strings.data.session_id, expressions }),
        'dbg_evaluate',
      );
      for (const r of answer.data.results) {
        if ((r.value?.length ?? 0) > 301) throw new Error(`${r.expression}: a value of ${r.value.length} chars`);
        // GDB reads no more than 64 KiB of a value: the 1 MiB array is refused, saying how to read it.
        if (r.error !== undefined && !/more than GDB reads at once/.test(r.error)) {
          throw new Error(`${r.expression}: ${r.error}`);
        }
      }
      return [answer.ms];
    };
    const values = await twins(evaluate(['big', 'big_array']), evaluate(['mid', 'mid_array']));
    rows.push({
      name: 'dbg_evaluate of 1 MiB strings',
      measured: ms(values.huge),
      target: `≤ ${TWIN_RATIO}× 256-byte strings`,
      ratio: `${values.ratio.toFixed(2)}× 256-byte strings (${ms(values.small)})`,
      pass: values.ratio <= TWIN_RATIO,
    });

    // 16 MiB asked of a tool that reads 4096 bytes at most: refused at once, saying so.
    const memory = (length) => async () => {
      const answer = await call('dbg_memory', { session_id: strings.data.session_id, address: 'big', length });
      if (length > 4096 && !(answer.isError && /4096/.test(answer.text))) {
        throw new Error(`a 16 MiB read was not refused with the limit: ${answer.text.slice(0, 200)}`);
      }
      return [ok(length > 4096 ? { ...answer, isError: false } : answer, 'dbg_memory').ms];
    };
    const refusal = await twins(memory(16 * 1024 * 1024), memory(64));
    rows.push({
      name: 'dbg_memory of 16 MiB (refused: 4096 at most)',
      measured: ms(refusal.huge),
      target: `≤ ${TWIN_RATIO}× a 64-byte read`,
      ratio: `${refusal.ratio.toFixed(2)}× a 64-byte read (${ms(refusal.small)})`,
      pass: refusal.ratio <= TWIN_RATIO,
    });
    await close(strings);

    // 100,000 frames: the stack view at the bottom, against the same view 20 frames deep.
    const recurse = fixture('recurse');
    const deep = await start(
      { program: recurse, args: ['100000'], breakpoints: [{ location: 'bottom' }] },
      'dbg_start 100,000 frames',
    );
    const shallow = await start(
      { program: recurse, args: ['20'], breakpoints: [{ location: 'bottom' }] },
      'dbg_start 20 frames',
    );
    const stack = (session) => async () => [
      ok(await call('dbg_inspect', { session_id: session.data.session_id, view: 'stack' }), 'dbg_inspect').ms,
    ];
    const stacks = await twins(stack(deep), stack(shallow));
    rows.push({
      name: 'dbg_inspect stack, 100,000 frames deep',
      measured: ms(stacks.huge),
      target: `≤ ${TWIN_RATIO}× 20 frames deep`,
      ratio: `${stacks.ratio.toFixed(2)}× 20 frames deep (${ms(stacks.small)})`,
      pass: stacks.ratio <= TWIN_RATIO,
    });
    // Paging to the far end is asked for explicitly, and GDB can only get there by unwinding.
    const far = ok(
      await call('dbg_inspect', { session_id: deep.data.session_id, view: 'stack', from: 99_990 }),
      'dbg_inspect from=99990',
    );
    rows.push({
      name: 'dbg_inspect stack from=99,990 (GDB unwinds all)',
      measured: ms(far.ms),
      target: 'reported',
      ratio: '—',
      pass: true,
    });
    await close(deep);
    await close(shallow);

    // A crash 100,000 frames deep, against the same crash 20 frames deep.
    const crashAt = (depth) => async () => {
      const answer = await start({ program: recurse, args: [depth, 'crash'] }, `dbg_start crash at ${depth}`);
      if (!answer.data.views?.crash) throw new Error(`no crash view at ${depth}: ${answer.text.slice(0, 300)}`);
      await close(answer);
      return [answer.ms];
    };
    const crashes = { a: [], b: [] };
    for (let i = 0; i < 3; i++) {
      crashes.a.push(...(await crashAt('100000')()));
      crashes.b.push(...(await crashAt('20')()));
    }
    const crashRatio = median(crashes.a) / median(crashes.b);
    rows.push({
      name: 'crash view 100,000 frames deep (dbg_start)',
      measured: ms(median(crashes.a)),
      target: `≤ ${TWIN_RATIO}× 20 frames deep`,
      ratio: `${crashRatio.toFixed(2)}× 20 frames deep (${ms(median(crashes.b))})`,
      pass: crashRatio <= TWIN_RATIO,
    });

    const { peak } = memoryOf(server.pid);
    rows.push({
      name: 'huge data: server peak RSS (VmHWM)',
      measured: mb(peak),
      target: `< ${mb(RSS_MAX)}`,
      ratio: '—',
      pass: peak < RSS_MAX,
    });
    rows.push({
      name: 'huge data: answers inside the budget',
      measured: oversize.length === 0 ? 'all' : `${oversize.length} over: ${oversize.join('; ')}`,
      target: `text ≤ ${TEXT_BUDGET} chars, result ≤ ${RESULT_MAX / 1024} KiB`,
      ratio: '—',
      pass: oversize.length === 0,
    });
    return rows;
  } finally {
    await server.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runHugeDataBench();
  console.log(formatBenchTable(rows));
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
