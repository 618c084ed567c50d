// A stand-in for winedbg's prompt (no Wine needed): "Wine-dbg>" with no newline after it, one
// command a line. Commands: echo X (prints X, or winedbg's error quoting it with FAKE_NOPROC),
// say TEXT, fakeprompt, big N, sleep MS, utf8split, exit. Every line read is logged to FAKE_LOG.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const out = (s) => process.stdout.write(s);
const log = (s) => process.env.FAKE_LOG && appendFileSync(process.env.FAKE_LOG, `${JSON.stringify(s)}\n`);
if (process.env.FAKE_BANNER) out(`${process.env.FAKE_BANNER}\n`);
out('Wine-dbg>');
const queue = [];
let busy = false;
const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
rl.on('line', (line) => {
  queue.push(line);
  if (!busy) void next();
});
async function next() {
  busy = true;
  while (queue.length > 0) {
    const line = queue.shift();
    log(line);
    const [cmd, ...rest] = line.split(' ');
    const arg = rest.join(' ');
    if (cmd === 'echo') out(process.env.FAKE_NOPROC ? `No process loaded, cannot execute '${line}'\n` : `${arg}\n`);
    else if (cmd === 'say') out(`${arg}\n`);
    else if (cmd === 'fakeprompt') {
      out('tricky Wine-dbg>');
      await new Promise((r) => setTimeout(r, 50));
      out('more\n');
    } else if (cmd === 'big') out(`${'x'.repeat(Number(arg))}\n`);
    else if (cmd === 'sleep') {
      await new Promise((r) => setTimeout(r, Number(arg)));
      out('slept\n');
    } else if (cmd === 'utf8split') {
      const bytes = Buffer.from('é€\n');
      process.stdout.write(bytes.subarray(0, 1));
      await new Promise((r) => setTimeout(r, 20));
      process.stdout.write(bytes.subarray(1));
    } else if (cmd === 'exit') process.exit(3);
    else if (cmd === 'quit') process.exit(0);
    else if (cmd !== '') out(`Syntax error\n`);
    out('Wine-dbg>');
  }
  busy = false;
}
