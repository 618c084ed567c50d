// The text of dbg://guide: the diagnosis workflows as tool calls, the evidence model and the
// bounds. Numbers come from LIMITS and the server's configuration, so the guide cannot drift.

import { LIMITS } from '../session/limits.js';
import type { ServerConfig } from './config.js';

export function guideMarkdown(config: ServerConfig): string {
  const raw = config.raw !== 'off';
  const idle = config.idleTimeoutMs > 0 ? `${Math.round(config.idleTimeoutMs / 60_000)} minutes` : 'never';
  return `# Debugging with dbg-mcp

One session = one debugger and one program. \`dbg_start\` creates it and, in the same call, runs the
program to its first interesting stop and returns the evidence. Then \`dbg_inspect\` and
\`dbg_evaluate\` read more at that stop, \`dbg_run\` moves the program, \`dbg_close\` ends it all.
Every answer carries \`session.state\` and \`session.stop_id\`.

## A crash

1. \`dbg_start {"program": "build/app", "args": ["in.txt"]}\`: the default \`stop: "none"\` runs to the
   crash. \`views.crash\` holds the signal and what it means, the fault address with a hint (NULL
   pointer, stack overflow…), the stack with arguments (library frames folded), the locals of the
   first user frames, the source around the line, the faulting instruction and the program's last
   output. If the crash needs input, pass \`"stdin": "line\\n"\`.
2. Not plain yet? \`dbg_inspect {"session_id": S, "view": "frame", "frame": 2, "stop_id": N}\` for a
   caller, \`dbg_evaluate {"session_id": S, "expressions": ["*node", "len"], "stop_id": N}\` for values.
3. The bad value was made earlier: run again with a watchpoint (\`dbg_start\` with \`"stop": "main"\`,
   then \`dbg_breakpoints {"session_id": S, "action": "set", "kind": "watchpoint", "expression": "p->next"}\`
   and \`dbg_run {"action": "continue"}\`), or go backwards (below).
4. \`dbg_close {"session_id": S}\`.

## A hang

1. \`dbg_start {"program": "build/app", "timeout_ms": 3000}\`: at the deadline \`dbg_start\` interrupts
   the program (its default \`on_timeout\`) and returns the \`stop\` and \`threads\` views. Each thread
   has a short stack and \`waiting\` (mutex, condition, join, sleep, io…).
2. Deadlock: two or more threads waiting on mutexes. \`dbg_evaluate\` on a mutex's
   \`__data.__owner\` gives the thread (its \`target_id\` LWP) that holds it.
   Busy loop: a thread in your own code. Read its locals, then \`dbg_run {"action": "next", "count": 5}\`
   or \`dbg_run {"action": "continue", "timeout_ms": 500, "on_timeout": "interrupt"}\` to see what moves.
   Waiting for input: the stack is in read(); type with \`dbg_io {"action": "write", "data": "…\\n"}\`.
3. \`dbg_close\`.

## A wrong value

1. \`dbg_start {"program": "build/app", "breakpoints": [{"location": "calc.c:42", "condition": "i == 3"}]}\`
   stops where the value is computed (\`condition\` skips the uninteresting hits).
2. \`dbg_evaluate {"session_id": S, "expressions": ["total", "items[i]"]}\`, then
   \`dbg_run {"action": "next"}\` / \`"step"\` and read again; \`"finish"\` returns a function's value.
3. Who changed it: a write watchpoint (\`dbg_breakpoints\`, kind watchpoint) stops at each change with the
   old and new value and the line. A dprintf logpoint prints without stopping: its text is in
   \`dbg_io {"action": "read", "stream": "debugger"}\`.

## A bug that shows only sometimes (threads racing)

Under a debugger a race often hides: the program runs slower and its threads interleave
differently, so a counter updated without a lock may come out right every time. To make it show:
run more iterations or more threads than the failing case needs (\`args\`); pin the program to one
core so the scheduler switches threads mid-update (run it as \`taskset -c 0 …\` through a wrapper
program under the roots, or start the server under \`taskset\`); stop on the symptom instead of
watching for it (an \`assert\` or a breakpoint with a \`condition\` on the wrong value), and then read
every thread (\`dbg_inspect\` threads view). Where rr records (\`dbg_doctor\`), \`dbg_record {"chaos": true}\`
(rr's chaos mode) varies the scheduling on purpose and the recording replays the failing run exactly.

## Going backwards: who wrote the bad value

With GDB's process record (\`record full\`: slow, so for short runs; on CPUs with AMX under GDB 13 it
cannot run backwards, and \`record: true\` is refused there with the reason: \`dbg_doctor\` says which):

1. \`dbg_start {"program": "build/app", "record": true}\` starts at \`main\`, records from there and runs to
   the crash (or the breakpoint, or the deadline). glibc is steered off the vector instructions
   record cannot step (the answer says so); \`record_start\` / \`record_stop\` in \`dbg_run\` do it at
   any stop instead.
2. \`dbg_breakpoints {"action": "set", "kind": "watchpoint", "expression": "state.guard"}\`, then
   \`dbg_run {"action": "reverse_continue"}\` stops at the line that last wrote it, with the value
   before and after the write (in the program's order).
3. \`reverse_step\`, \`reverse_next\`, \`reverse_finish\`, \`reverse_stepi\`, \`reverse_nexti\` move
   back by lines, calls and instructions. Stops in recorded history say \`replaying\`; at either end
   of the recording the stop says \`history: "start"\` or \`"end"\` (continuing past the end runs live).
   If recording meets an instruction it cannot step or fills its buffer, the stop's \`record_note\`
   says which, where, and what to do.

With rr (fast, whole runs, needs hardware performance counters — \`dbg_doctor\` says if it works
here): \`dbg_record {"program": "build/app"}\` records a run; \`dbg://traces\` lists recordings;
\`dbg_start {"backend": "rr", "trace": "…"}\` replays one with every forward and reverse action, and
each stop carries its position in the trace (\`when\`). rr's checkpoints go through \`dbg_command\`${raw ? '' : ' (off on this server: it runs with --raw off)'}:
\`checkpoint\`, \`info checkpoints\`, \`restart N\`. A multi-process trace: \`dbg_record\` lists its
processes; \`pid\` in \`dbg_start\` picks one.

## Other targets

- A core dump: \`dbg_start {"program": "app", "core": "core.1234"}\` opens at the crash (the crash view
  works; nothing runs). A live session saves one with \`dbg_memory {"action": "save_core", "path": …}\`.
- A running process: \`dbg_start {"attach": PID}\` stops it and shows where every thread is;
  \`dbg_close\` detaches and leaves it running.
- gdbserver or QEMU: \`dbg_start {"program": "app", "remote": "127.0.0.1:1234"}\` (\`extended: true\`
  for \`gdbserver --multi\`, which runs the program); a foreign-architecture program is debugged with
  gdb-multiarch, \`sysroot\` naming its libraries.
- Children: \`forks: "child"\` or \`"both"\` follows forks; catch fork/exec with \`dbg_breakpoints\`.

## Stops, stop ids and stale_context

States: \`starting\`, \`loaded\` (not started), \`stopped\`, \`running\`, \`exited\`, \`dead\` (the debugger
itself died; the answer says why). Each stop gets a \`stop_id\`, counting up. Evidence belongs to one
stop: pass \`stop_id\` to \`dbg_inspect\` or \`dbg_evaluate\` and, if the program has moved on, the call
fails with \`stale_context\` instead of mixing two stops; read again at the new stop. A run that
reaches its deadline answers \`running\`; \`dbg_run {"action": "interrupt"}\` stops it. Errors carry a
\`code\` (invalid_argument, no_session, wrong_state, timeout, backend_unavailable, debugger_error,
stale_context, limit_exceeded, internal) and say what to do next.

## Views (dbg_inspect, and \`inspect\` in dbg_start / dbg_run)

- \`stop\`: why it stopped (breakpoint, watchpoint with old/new value, signal, step end…), thread, frame, source.
- \`crash\`: everything above for a fatal signal or abort, in one view.
- \`stack\`: frames with arguments, paged by \`stack_depth\` and \`from\`.
- \`threads\`: every thread, its state, a short stack and what it waits for; \`include_locals\` adds locals.
- \`frame\`: one frame with its locals and source. \`locals\`, \`args\`: just the variables.
- \`registers\`: general registers, or the ones named. \`source\`: lines around a line.
- \`libraries\`: loaded shared libraries, their addresses and whether they have symbols.

## Bounds

Answers are cut at documented limits and say what was cut: ${LIMITS.stackDepthDefault} frames per stack
page (at most ${LIMITS.stackDepthMax}), ${LIMITS.crashStackDepth} in the crash view; ${LIMITS.threadsPageDefault} threads per page; ${LIMITS.variablesMax}
variables per frame; values cut at ${LIMITS.valueChars} characters; source ±${LIMITS.sourceContext} lines; ${LIMITS.memoryReadMax} bytes per memory
read; ${LIMITS.disassembleDefault} instructions per disassembly by default (at most ${LIMITS.disassembleMax}); program output
${LIMITS.ioReadDefault} bytes per \`dbg_io\` read by default (at most ${LIMITS.ioReadMax}); ${LIMITS.commandOutputMax} characters of raw command
output; ${config.answerBudget} characters of text per answer.

## The program's terminal

The program runs on a terminal of its own: its output never mixes with the debugger's, and what is
typed reaches only the program. \`dbg_io\` reads the output by byte cursor (\`next\` is where to go on;
\`dropped\` counts bytes the buffer no longer holds), writes to its stdin (a line at each newline) and
sends end-of-file. Run answers quote what the program printed during the run.

## Sessions

At most ${config.maxSessions} sessions at once; a session unused for ${idle} is closed (\`dbg_sessions\` lists
what is open and what was closed for idleness). \`dbg_close\` kills what the session launched and stops
the debugger; closing twice is harmless. Function calls in expressions are ${config.allowInferiorCalls ? 'allowed' : 'off (--inferior-calls on allows them)'}.
`;
}
