// `npm run build` without its listing (rolldown prints every chunk even under npm --silent), for
// the demo and the doctor: what they print is theirs alone. A failed build prints everything the
// build said, to stderr, and exits with its code.
import { spawn } from 'node:child_process';

const child = spawn('npm', ['run', 'build', '--silent'], { stdio: ['ignore', 'pipe', 'pipe'] });
const said = [];
child.stdout.on('data', (c) => said.push(c));
child.stderr.on('data', (c) => said.push(c));
child.on('close', (code, signal) => {
  if (code === 0) return;
  process.stderr.write(Buffer.concat(said));
  process.stderr.write(`the build failed (${signal ?? `exit code ${code}`})\n`);
  process.exit(code ?? 1);
});
