// Windows exception codes in the terms an agent reads: name, the Unix signal winedbg's gdb proxy
// turns them into (gdbproxy.c signal_from_debug_event, Wine 8), and a plain-words hint. The
// proxy folds several codes into one signal (an access violation and a stack overflow are both
// SIGSEGV, integer and float division by zero both SIGFPE), so the code itself is what tells them
// apart; winedbgTrace.ts reads it from winedbg's trace channel.

export interface WindowsException {
  code: number;
  /** The Windows name: EXCEPTION_ACCESS_VIOLATION, STATUS_STACK_BUFFER_OVERRUN… */
  name: string;
  /** What GDB is told: the proxy's signal for this code (SIGABRT for one it does not know). */
  signal: string;
  /** One line an agent can act on. */
  hint: string;
}

type Entry = [name: string, signal: string, hint: string];

const CODES: ReadonlyMap<number, Entry> = new Map<number, Entry>([
  [
    0xc0000005,
    [
      'EXCEPTION_ACCESS_VIOLATION',
      'SIGSEGV',
      'read, wrote or executed an address with no memory (or the wrong protection) behind it: a NULL, dangling or wild pointer',
    ],
  ],
  [
    0xc00000fd,
    [
      'EXCEPTION_STACK_OVERFLOW',
      'SIGSEGV',
      "the thread's stack ran out (1 MiB by default): unbounded recursion or a huge local array",
    ],
  ],
  [0xc0000094, ['EXCEPTION_INT_DIVIDE_BY_ZERO', 'SIGFPE', 'an integer division or remainder by zero']],
  [0xc0000095, ['EXCEPTION_INT_OVERFLOW', 'SIGFPE', 'an integer division overflowed (INT_MIN / -1)']],
  [
    0x80000003,
    [
      'EXCEPTION_BREAKPOINT',
      'SIGTRAP',
      'a breakpoint instruction ran: DebugBreak(), __debugbreak() or int3 in the program',
    ],
  ],
  [0x80000004, ['EXCEPTION_SINGLE_STEP', 'SIGTRAP', 'a single step or hardware breakpoint completed']],
  [
    0xc000001d,
    [
      'EXCEPTION_ILLEGAL_INSTRUCTION',
      'SIGILL',
      'the CPU met an invalid instruction: corrupted code, a bad function pointer, or an unsupported CPU feature',
    ],
  ],
  [
    0xc0000096,
    ['EXCEPTION_PRIV_INSTRUCTION', 'SIGSEGV', 'a privileged instruction ran in user mode: usually a jump into data'],
  ],
  [0x80000001, ['EXCEPTION_GUARD_PAGE', 'SIGSEGV', 'a guard page was touched']],
  [0x80000002, ['EXCEPTION_DATATYPE_MISALIGNMENT', 'SIGBUS', 'a misaligned access where alignment is enforced']],
  [0xc000008c, ['EXCEPTION_ARRAY_BOUNDS_EXCEEDED', 'SIGABRT', 'an array index out of bounds (hardware bounds check)']],
  [0xc000008d, ['EXCEPTION_FLT_DENORMAL_OPERAND', 'SIGFPE', 'a floating-point operand was denormal']],
  [
    0xc000008e,
    ['EXCEPTION_FLT_DIVIDE_BY_ZERO', 'SIGFPE', 'a floating-point division by zero (with the exception unmasked)'],
  ],
  [
    0xc000008f,
    ['EXCEPTION_FLT_INEXACT_RESULT', 'SIGFPE', 'an inexact floating-point result (with the exception unmasked)'],
  ],
  [
    0xc0000090,
    ['EXCEPTION_FLT_INVALID_OPERATION', 'SIGFPE', 'an invalid floating-point operation (with the exception unmasked)'],
  ],
  [0xc0000091, ['EXCEPTION_FLT_OVERFLOW', 'SIGFPE', 'a floating-point overflow (with the exception unmasked)']],
  [0xc0000092, ['EXCEPTION_FLT_STACK_CHECK', 'SIGFPE', 'the x87 register stack over- or underflowed']],
  [0xc0000093, ['EXCEPTION_FLT_UNDERFLOW', 'SIGFPE', 'a floating-point underflow (with the exception unmasked)']],
  [0xc0000006, ['EXCEPTION_IN_PAGE_ERROR', 'SIGABRT', 'a page of a mapped file could not be read in']],
  [
    0xc0000025,
    [
      'EXCEPTION_NONCONTINUABLE_EXCEPTION',
      'SIGABRT',
      'the program tried to continue after a non-continuable exception',
    ],
  ],
  [0xc0000026, ['EXCEPTION_INVALID_DISPOSITION', 'SIGABRT', 'an exception handler returned an invalid disposition']],
  [
    0xc0000409,
    ['STATUS_STACK_BUFFER_OVERRUN', 'SIGABRT', 'the program failed fast: a /GS stack cookie check, or __fastfail()'],
  ],
  [
    0xc0000374,
    [
      'STATUS_HEAP_CORRUPTION',
      'SIGABRT',
      'the heap found its own structures corrupted: a double free or a write past an allocation',
    ],
  ],
  [0xc000013a, ['STATUS_CONTROL_C_EXIT', 'SIGINT', 'the program was ended by Ctrl+C']],
  [0x40010005, ['DBG_CONTROL_C', 'SIGABRT', 'Ctrl+C was pressed in the console']],
  [0xc0000194, ['STATUS_POSSIBLE_DEADLOCK', 'SIGALRM', 'a critical section wait timed out: a possible deadlock']],
  [0xc0000008, ['EXCEPTION_INVALID_HANDLE', 'SIGTRAP', 'a function was given a handle that is not valid']],
  [0x406d1388, ['MS_VC_EXCEPTION', 'SIGTRAP', 'the program named a thread (the MSVC convention): not an error']],
  [0xe06d7363, ['MSVC_CXX_EXCEPTION', 'SIGABRT', 'a C++ exception thrown by MSVC-built code']],
  [0x20474343, ['GCC_CXX_EXCEPTION', 'SIGABRT', 'a C++ exception thrown by mingw (GCC) code']],
]);

export function windowsException(code: number): WindowsException {
  const known = CODES.get(code >>> 0);
  if (known) return { code: code >>> 0, name: known[0], signal: known[1], hint: known[2] };
  // Bit 29 marks a code the application defined itself (RaiseException with its own code).
  const custom = ((code >>> 0) & 0x20000000) !== 0;
  return {
    code: code >>> 0,
    name: `0x${(code >>> 0).toString(16).padStart(8, '0')}`,
    signal: 'SIGABRT',
    hint: custom
      ? 'an exception code the program defined itself, raised with RaiseException and not handled (winedbg reports it to GDB as SIGABRT; it is not an abort)'
      : 'an exception code this server does not know (winedbg reports it to GDB as SIGABRT)',
  };
}

/** An NTSTATUS exit code of a process that died of an exception (0xC0000005…), or undefined. */
export function exceptionOfExitCode(exitCode: number): WindowsException | undefined {
  const code = exitCode >>> 0;
  return CODES.has(code) && code >= 0xc0000000 ? windowsException(code) : undefined;
}

/** The codes the proxy reports as `signal`: several for SIGSEGV and SIGFPE, hence the code. */
export function codesForSignal(signal: string): number[] {
  return [...CODES].filter(([, e]) => e[1] === signal).map(([code]) => code);
}
