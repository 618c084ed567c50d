// The evidence contract: the shapes of every answer's structuredContent, as zod schemas. The
// TypeScript types the wire builders return are inferred from them, and docs/schema/ is generated
// from them (scripts/genSchemas.mjs), so the published contract is the code. An optional field
// says in its description what its absence means: not gathered (the reason is then in
// `failures`), not applicable, or none.
//
// EVIDENCE_VERSION changes when a field changes meaning or goes away (a new optional field does
// not change it); the CHANGELOG says what changed for clients.

import * as z from 'zod/v4';

export const EVIDENCE_VERSION = 1;

const hex = z.string().describe('An address, hex with 0x.');

export const variableShape = z.object({
  name: z.string(),
  value: z
    .string()
    .optional()
    .describe('Absent when the debugger gave no value (optimized out shows as its own text).'),
  type: z.string().optional().describe('Absent when types were not asked for.'),
  truncated: z.boolean().optional().describe('Present (true) when the value was cut at the value limit.'),
});

export const argumentShape = variableShape.omit({ type: true });

export const frameShape = z.object({
  level: z.number().describe('0 = innermost.'),
  function: z.string().optional().describe('Absent when the debugger knows no symbol for the pc.'),
  file: z.string().optional().describe('Source file as the debug info names it; absent without debug info.'),
  line: z.number().optional().describe('Absent without debug info.'),
  address: hex.optional().describe('The frame pc; absent when the debugger did not give it.'),
  library: z.string().optional().describe('The shared object of the pc, for frames without source.'),
  args: z.array(argumentShape).optional().describe('Absent when arguments were not asked for.'),
});

export const foldedFramesShape = z.object({
  folded: z.number().describe('How many library frames this one line stands for.'),
  levels: z.string().describe('Their levels, "3-9".'),
  library: z.string().optional().describe('Absent when the frames span several libraries or none is known.'),
  functions: z.array(z.string()),
});

export const repeatedFramesShape = z.object({
  repeated: z.number().describe('How many frames of this one call (recursion) this one line stands for.'),
  levels: z.string().describe('Their levels, "1-11".'),
  function: z.string().optional().describe('Absent when the debugger knows no symbol for the pc.'),
  file: z.string().optional(),
  line: z.number().optional(),
  args: z
    .array(argumentShape)
    .optional()
    .describe('The outermost frame’s arguments (where the recursion was entered); absent when not asked for.'),
});

export const stackEntryShape = z.union([frameShape, foldedFramesShape, repeatedFramesShape]);

export const sourceLineShape = z.object({ line: z.number(), text: z.string() });
export const sourceWindowShape = z.object({
  file: z.string(),
  line: z.number().describe('The line of interest, marked > in the text.'),
  lines: z.array(sourceLineShape),
});

export const instructionShape = z.object({
  address: hex,
  function: z.string().optional().describe('Absent where no symbol covers the address.'),
  offset: z.number().optional().describe('Bytes from the function start.'),
  instruction: z.string(),
  opcodes: z.string().optional().describe('Absent unless asked for.'),
  line: z.number().optional().describe('Absent unless source was asked for and is known.'),
  file: z.string().optional(),
});

export const watchShape = z.object({
  expression: z.string(),
  old: z.string().optional().describe('Absent for a read watchpoint.'),
  new: z.string().optional(),
  value: z.string().optional().describe('The value read (read and access watchpoints).'),
});

export const exceptionShape = z.object({
  code: hex.describe("The system's code: 0xc0000005."),
  name: z.string().describe('EXCEPTION_ACCESS_VIOLATION, EXCEPTION_STACK_OVERFLOW, …'),
  meaning: z.string(),
  access: z.enum(['read', 'write', 'execute']).optional().describe('A memory fault: absent when not known.'),
  address: hex.optional().describe('The address the fault touched: absent when not known.'),
  inferred_from: z
    .string()
    .optional()
    .describe('Present when access and address are inferred (the faulting instruction, the stack pointer).'),
  second_chance: z
    .boolean()
    .optional()
    .describe('Present (true) when no handler took it: continuing ends the program.'),
});

export const stopShape = z.object({
  stop_id: z.number().optional().describe('Absent where the stop is given as a view (its id is the session’s).'),
  reason: z.string().describe('breakpoint-hit, signal-received, end-stepping-range, function-finished, …'),
  raw_reason: z.string().optional().describe("The debugger's own word, when it is not one we know."),
  signal: z.string().optional().describe('Absent when no signal caused the stop.'),
  signal_meaning: z.string().optional(),
  fault_address: hex
    .optional()
    .describe(
      'SIGSEGV/SIGBUS/SIGFPE/SIGILL: absent when the kernel gave none. With signal_code 128 (SI_KERNEL), the address the faulting instruction accessed, decoded from it (the kernel reports 0).',
    ),
  signal_code: z
    .number()
    .optional()
    .describe("The kernel's si_code (128 SI_KERNEL: a general-protection fault, no address); absent when not read."),
  fault_note: z
    .string()
    .optional()
    .describe('For a fault the kernel gave no address for: the bad pointer, its register and any fill pattern it is.'),
  exception: exceptionShape
    .optional()
    .describe('The OS exception behind the signal (Windows programs); absent elsewhere.'),
  thread: z.number().optional(),
  frame: frameShape.optional(),
  breakpoint: z.string().optional().describe('The breakpoint, watchpoint or catchpoint that stopped it.'),
  watch: watchShape.optional(),
  return_value: z.string().optional().describe('finish: absent for a void function.'),
  new_pid: z.number().optional(),
  new_program: z.string().optional(),
  syscall: z.string().optional(),
  pid: z.number().optional().describe('Present only when the session debugs several processes.'),
  replaying: z.boolean().optional().describe('Present (true) while running recorded history.'),
  history: z.enum(['start', 'end']).optional().describe('An end of the recorded history was reached.'),
  record_note: z.string().optional(),
  when: z
    .object({ event: z.number().optional(), ticks: z.number().optional() })
    .optional()
    .describe('rr replays: the position in the trace.'),
});

export const exitShape = z.object({
  exit_code: z.number().optional().describe('Absent when a signal ended the program.'),
  signal: z.string().optional(),
  signal_meaning: z.string().optional(),
  killed: z
    .boolean()
    .optional()
    .describe('Present (true) when killed on request, or to end a run the debugger could not carry out.'),
  reason: z
    .string()
    .optional()
    .describe('Why the program was killed when nobody asked (the debugger looped on an error).'),
});

export const outcomeShape = z.union([
  z.object({ kind: z.literal('stopped'), ...stopShape.shape }),
  z.object({ kind: z.literal('exited'), ...exitShape.shape }),
  z.object({ kind: z.literal('running') }),
  z.object({ kind: z.literal('dead'), reason: z.string() }),
]);

export const breakpointLocationShape = z.object({
  id: z.string(),
  enabled: z.boolean(),
  function: z.string().optional(),
  file: z.string().optional(),
  line: z.number().optional(),
  address: hex.optional(),
});

export const breakpointShape = z.object({
  number: z.string(),
  type: z.string().describe('breakpoint, hw breakpoint, watchpoint, hw watchpoint, catchpoint, dprintf, …'),
  enabled: z.boolean(),
  temporary: z.boolean().optional().describe('Present (true) for a one-hit breakpoint.'),
  pending: z.boolean().optional().describe('Present (true) while its location does not resolve yet.'),
  location: z.string().optional().describe('As asked for.'),
  function: z.string().optional(),
  file: z.string().optional(),
  line: z.number().optional(),
  address: hex.optional(),
  condition: z.string().optional(),
  ignore_count: z.number().optional(),
  hits: z.number(),
  what: z.string().optional().describe('Watchpoints: the expression; catchpoints: what is caught.'),
  script: z.array(z.string()).optional().describe('dprintf: its format and arguments.'),
  thread: z.number().optional().describe('Present when it stops only one thread.'),
  locations: z.array(breakpointLocationShape).optional().describe('Present when it has several locations.'),
});

export const libraryShape = z.object({
  path: z.string(),
  symbols: z.boolean(),
  from: hex.optional().describe('Absent before the library is mapped.'),
  to: hex.optional(),
});

export const registerShape = z.object({ name: z.string(), value: z.string() });

export const frameVariablesShape = z.object({
  level: z.number(),
  function: z.string().optional(),
  variables: z.array(variableShape),
  omitted: z.number().optional().describe('Variables left out past the per-frame limit; absent when none.'),
});

export const threadShape = z.object({
  id: z.number(),
  pid: z.number().optional().describe('Present only when the session debugs several processes.'),
  target_id: z.string().optional(),
  name: z.string().optional(),
  state: z.enum(['stopped', 'running', 'unknown']),
  waiting: z
    .string()
    .optional()
    .describe('What it waits for (mutex … held by thread N, join, io (read), …); absent when not blocked.'),
  frame: frameShape.optional().describe('Its current frame, when no stack was gathered for it.'),
  stack: z.array(stackEntryShape).optional().describe('Absent for a running thread.'),
  locals: frameVariablesShape.optional().describe('Present with include_locals: its first own frame.'),
});

// ---- the views ----------------------------------------------------------------------------

export const stopViewShape = z.object({
  summary: z.string(),
  ...stopShape.shape,
  callers: z
    .array(frameShape)
    .optional()
    .describe('For a stop in library code: frames #1 down to the first of the program’s own.'),
  source: sourceWindowShape
    .optional()
    .describe('The stop’s source, or its first own caller’s for a stop in library code; absent when neither is known.'),
});

export const runtimeReportShape = z.object({
  tool: z.string().describe('The checker: AddressSanitizer, UndefinedBehaviorSanitizer, LeakSanitizer, …'),
  kind: z
    .string()
    .describe(
      'heap-use-after-free, stack-buffer-overflow, signed-integer-overflow, …; unavailable-under-ptrace when LeakSanitizer could not run under the debugger.',
    ),
  error_line: z
    .string()
    .describe('The line that opens the report (==PID==ERROR: …, or file:line:col: runtime error: …).'),
  summary_line: z.string().optional().describe('Its SUMMARY line; absent when it printed none.'),
  access: z
    .object({ op: z.enum(['READ', 'WRITE']), size: z.number().optional(), address: hex })
    .optional()
    .describe('The bad access; absent for reports about no access (a double free, an overflow).'),
  location: z
    .object({ function: z.string().optional(), file: z.string(), line: z.number() })
    .optional()
    .describe('The first place of the report’s stack in the program’s own code; absent when it names none.'),
});

export const crashViewShape = z.object({
  signal: z.string().optional(),
  signal_meaning: z.string().optional(),
  fault_address: hex
    .optional()
    .describe('Absent when the kernel gave none; for signal_code 128, decoded from the faulting instruction.'),
  signal_code: z.number().optional().describe("The kernel's si_code; absent when not read."),
  fault_note: z
    .string()
    .optional()
    .describe('For a fault the kernel gave no address for (SI_KERNEL): the bad pointer and what its value is.'),
  hint: z
    .string()
    .describe('The plain-words reading: NULL dereference, stack overflow, a sanitizer’s report, abort message, …'),
  report: runtimeReportShape
    .optional()
    .describe('A sanitizer’s report the program printed before it aborted; absent when there was none.'),
  thread: z.number().optional(),
  pid: z.number().optional(),
  stack: z.array(stackEntryShape),
  depth: z.number().optional().describe('Total depth, present when deeper than shown.'),
  depth_at_least: z.boolean().optional().describe('Present (true) when counting stopped at the probe limit.'),
  locals: z.array(frameVariablesShape).describe('Of the first two frames of the user’s own code.'),
  source: sourceWindowShape.optional().describe('Absent when no user frame has source under the roots.'),
  instruction: instructionShape.optional().describe('The instruction at the pc; absent when it could not be read.'),
  output_tail: z.string().optional().describe('The last bytes the program printed; absent when it printed nothing.'),
});

export const stackViewShape = z.object({
  thread: z.number().optional(),
  from: z.number(),
  frames: z.array(frameShape),
  more: z.boolean(),
});

export const threadsViewShape = z.object({
  current: z.number().optional(),
  total: z.number(),
  more: z.boolean(),
  hint: z.string().optional().describe('A deadlock, or where a hang spins; absent when nothing stands out.'),
  threads: z.array(threadShape),
});

export const frameViewShape = z.object({
  thread: z.number().optional(),
  frame: frameShape,
  locals: z.array(variableShape),
  source: sourceWindowShape.optional(),
});

export const variablesViewShape = z.object({
  thread: z.number().optional(),
  frame: z.number(),
  variables: z.array(variableShape),
  omitted: z.number().optional(),
});

export const registersViewShape = z.object({
  thread: z.number().optional(),
  frame: z.number(),
  registers: z.array(registerShape),
});

export const librariesViewShape = z.object({ total: z.number(), libraries: z.array(libraryShape) });

export const viewShapes = {
  stop: stopViewShape,
  crash: crashViewShape,
  stack: stackViewShape,
  threads: threadsViewShape,
  frame: frameViewShape,
  locals: variablesViewShape,
  args: variablesViewShape,
  registers: registersViewShape,
  source: sourceWindowShape,
  libraries: librariesViewShape,
} as const;

export const viewsShape = z
  .object(
    Object.fromEntries(Object.entries(viewShapes).map(([k, v]) => [k, v.optional()])) as {
      [K in keyof typeof viewShapes]: z.ZodOptional<(typeof viewShapes)[K]>;
    },
  )
  .describe('One entry per view gathered; a view absent here is listed in failures, or was not asked for.');

// ---- the session and errors -----------------------------------------------------------------

export const sessionShape = z.object({
  id: z.string(),
  state: z.enum(['starting', 'loaded', 'stopped', 'running', 'exited', 'dead']),
  stop_id: z.number().describe('The latest stop; 0 before the first.'),
  exit_code: z.number().optional().describe('Present once exited with a code.'),
  recording: z.boolean().optional().describe('Present (true) while execution is recorded.'),
  reason: z.string().optional().describe('Present when dead: why the debugger is gone.'),
});

export const errorShape = z.object({
  code: z.enum([
    'invalid_argument',
    'no_session',
    'wrong_state',
    'timeout',
    'backend_unavailable',
    'debugger_error',
    'stale_context',
    'limit_exceeded',
    'internal',
  ]),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const outputChunkShape = z.object({
  text: z.string(),
  from: z.number().describe('Byte cursor of the first byte shown.'),
  cursor: z.number().describe('Byte cursor after the last byte: pass it to dbg_io read.'),
  skipped: z.number().optional().describe('Bytes printed before `from` that are not shown; absent when none.'),
});

export type VariableWire = z.infer<typeof variableShape>;
export type ArgumentWire = z.infer<typeof argumentShape>;
export type FrameWire = z.infer<typeof frameShape>;
export type StackEntryWire = z.infer<typeof stackEntryShape>;
export type RuntimeReportWire = z.infer<typeof runtimeReportShape>;
export type InstructionWire = z.infer<typeof instructionShape>;
export type ExceptionWire = z.infer<typeof exceptionShape>;
export type StopWire = z.infer<typeof stopShape>;
export type ExitWire = z.infer<typeof exitShape>;
export type OutcomeWire = z.infer<typeof outcomeShape>;
export type BreakpointWire = z.infer<typeof breakpointShape>;
export type LibraryWire = z.infer<typeof libraryShape>;
export type RegisterWire = z.infer<typeof registerShape>;
export type ThreadWire = z.infer<typeof threadShape>;
export type FrameVariablesWire = z.infer<typeof frameVariablesShape>;
export type SessionWire = z.infer<typeof sessionShape>;
export type OutputChunkWire = z.infer<typeof outputChunkShape>;
export type ViewsWire = z.infer<typeof viewsShape>;
export type ViewWire = { [K in keyof typeof viewShapes]: z.infer<(typeof viewShapes)[K]> }[keyof typeof viewShapes];

// Names for the shared shapes, so the published JSON Schemas refer to them ($defs/Frame, …).
variableShape.register(z.globalRegistry, { id: 'Variable' });
argumentShape.register(z.globalRegistry, { id: 'Argument' });
frameShape.register(z.globalRegistry, { id: 'Frame' });
foldedFramesShape.register(z.globalRegistry, { id: 'FoldedFrames' });
repeatedFramesShape.register(z.globalRegistry, { id: 'RepeatedFrames' });
stackEntryShape.register(z.globalRegistry, { id: 'StackEntry' });
sourceWindowShape.register(z.globalRegistry, { id: 'SourceWindow' });
instructionShape.register(z.globalRegistry, { id: 'Instruction' });
watchShape.register(z.globalRegistry, { id: 'WatchChange' });
exceptionShape.register(z.globalRegistry, { id: 'Exception' });
stopShape.register(z.globalRegistry, { id: 'Stop' });
exitShape.register(z.globalRegistry, { id: 'Exit' });
outcomeShape.register(z.globalRegistry, { id: 'Outcome' });
breakpointLocationShape.register(z.globalRegistry, { id: 'BreakpointLocation' });
breakpointShape.register(z.globalRegistry, { id: 'Breakpoint' });
libraryShape.register(z.globalRegistry, { id: 'Library' });
registerShape.register(z.globalRegistry, { id: 'Register' });
frameVariablesShape.register(z.globalRegistry, { id: 'FrameVariables' });
threadShape.register(z.globalRegistry, { id: 'Thread' });
stopViewShape.register(z.globalRegistry, { id: 'StopView' });
runtimeReportShape.register(z.globalRegistry, { id: 'RuntimeReport' });
crashViewShape.register(z.globalRegistry, { id: 'CrashView' });
stackViewShape.register(z.globalRegistry, { id: 'StackView' });
threadsViewShape.register(z.globalRegistry, { id: 'ThreadsView' });
frameViewShape.register(z.globalRegistry, { id: 'FrameView' });
variablesViewShape.register(z.globalRegistry, { id: 'VariablesView' });
registersViewShape.register(z.globalRegistry, { id: 'RegistersView' });
librariesViewShape.register(z.globalRegistry, { id: 'LibrariesView' });
viewsShape.register(z.globalRegistry, { id: 'Views' });
sessionShape.register(z.globalRegistry, { id: 'Session' });
errorShape.register(z.globalRegistry, { id: 'Error' });
outputChunkShape.register(z.globalRegistry, { id: 'OutputChunk' });
