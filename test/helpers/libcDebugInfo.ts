// Whether GDB here sees glibc's debug info (libc6-dbg, or debuginfod): with it, a thread blocked in
// pthread_mutex_lock shows the mutex as the frame's argument, which is what the deadlock cycle is
// read from. Asked of gdb itself on a fixture, once per test file, independently of the code under
// test, so a test can skip with the reason instead of passing without checking.
import { execFileSync } from 'node:child_process';
import { fixture } from './paths.js';

let answer: { ok: boolean; why: string } | undefined;

export function libcDebugInfo(): { ok: boolean; why: string } {
  if (answer) return answer;
  let said = '';
  try {
    said = execFileSync(
      'gdb',
      [
        '-nx',
        '-q',
        '-batch',
        '-ex',
        'set debuginfod enabled off',
        '-ex',
        'start',
        '-ex',
        'ptype pthread_mutex_lock',
        fixture('deadlock'),
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
    );
  } catch (e) {
    said = String((e as { stdout?: string }).stdout ?? e);
  }
  // With debug info: "type = int (pthread_mutex_t *)"; without, a minimal symbol of no known type.
  const line = /^type = .*$/m.exec(said)?.[0] ?? said.trim().split('\n').pop() ?? '';
  answer = /pthread_mutex_t \*/.test(line)
    ? { ok: true, why: '' }
    : {
        ok: false,
        why: `gdb sees no debug info for glibc's pthread_mutex_lock here (${line.trim() || 'no answer'}): install libc6-dbg`,
      };
  return answer;
}
