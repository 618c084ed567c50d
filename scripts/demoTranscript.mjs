// The README's demo transcript is the demo's real output: `node scripts/demoTranscript.mjs
// --write` runs the built demo (dist/) and puts what it printed between the README's demo
// markers; test/e2e/demoTranscript.test.ts runs it again and compares, with the parts that
// differ from run to run (temporary directory, session id, pids, stack addresses) masked.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BEGIN = '<!-- demo:begin -->';
const END = '<!-- demo:end -->';

/** What `dbg-mcp demo` prints on stdout (the server's log goes to stderr). */
export function runDemo() {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(root, 'dist', 'dbg-mcp.js'), 'demo'],
      { cwd: root, timeout: 180_000, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`the demo failed: ${error.message}\n${stderr}`));
        else resolve(String(stdout));
      },
    );
  });
}

/** The transcript with what changes between runs replaced by placeholders. */
export function maskTranscript(text) {
  return text
    .replace(/\/tmp\/dbg-mcp-demo-[A-Za-z0-9]+/g, '/tmp/dbg-mcp-demo-XXXXXX')
    .replace(/session [0-9a-f]{8}/g, 'session SESSION')
    .replace(/"session_id":"[0-9a-f]{8}"/g, '"session_id":"SESSION"')
    .replace(/pid \d+/g, 'pid N')
    .replace(/0x7ff[0-9a-f]{9}/g, '0x7ffADDRESS');
}

/** The transcript inside the README's markers (without the code fence), or undefined. */
export function readmeTranscript(readme) {
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) return undefined;
  const block = readme.slice(a + BEGIN.length, b);
  const m = /```text\n([\s\S]*?)```/.exec(block);
  return m ? m[1] : undefined;
}

export function withTranscript(readme, transcript) {
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`README has no ${BEGIN} … ${END} markers`);
  const body = transcript.replace(/^\n+/, '').replace(/\n*$/, '\n');
  return `${readme.slice(0, a + BEGIN.length)}\n\`\`\`text\n${body}\`\`\`\n${readme.slice(b)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = join(root, 'README.md');
  const next = withTranscript(readFileSync(path, 'utf8'), await runDemo());
  if (process.argv.includes('--write')) writeFileSync(path, next);
  else process.stdout.write(readmeTranscript(next) ?? '');
}
