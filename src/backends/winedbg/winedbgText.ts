// winedbg's replies as data: `info process`, `info thread`, `info share` and the exception line.
// The shapes are winedbg 8's (programs/winedbg/info.c, tgt_active.c), recorded in the tests. A
// line that does not have the shape is skipped, never guessed at: names come from the program
// (an exe may be called anything) and only ever fill the name field.

export interface WindowsProcess {
  /** Windows process id (winedbg prints hex). */
  pid: number;
  threads: number;
  name: string;
  /** Depth in the parent tree winedbg draws with "\_ ": 0 for a process whose parent is gone. */
  depth: number;
  /** The nearest process above with one less depth: its parent. */
  parentPid: number | undefined;
  /** '=' winedbg itself, '>' the process it debugs. */
  mark: 'self' | 'debuggee' | undefined;
}

/**
 *  pid      threads  executable (all id:s are in hex)
 *  00000108 1        'start.exe'
 * =00000110 1        \_ 'winedbg.exe'
 * >00000484 2        \_ 'echo.exe'
 *  000004c4 2           \_ 'explorer.exe'
 */
export function parseInfoProcess(text: string): WindowsProcess[] {
  const found: WindowsProcess[] = [];
  const stack: number[] = [];
  for (const line of text.split('\n')) {
    // marker, 8 hex digits, a blank, the thread count left-aligned in 8, a blank: 19 columns.
    const head = /^([ =>])([0-9a-f]{8}) (\d+) */.exec(line);
    if (!head || line.length < 19) continue;
    const tree = /^( *)(\\_ )?'(.*)'\s*$/.exec(line.slice(19));
    if (!tree) continue;
    const indent = (tree[1] as string).length;
    const depth = tree[2] ? indent / 3 + 1 : 0;
    if (!Number.isInteger(depth)) continue;
    const pid = Number.parseInt(head[2] as string, 16);
    stack.length = depth;
    found.push({
      pid,
      threads: Number(head[3]),
      name: tree[3] as string,
      depth,
      parentPid: depth > 0 ? stack[depth - 1] : undefined,
      mark: head[1] === '=' ? 'self' : head[1] === '>' ? 'debuggee' : undefined,
    });
    stack[depth] = pid;
  }
  return found;
}

export interface WindowsThreadGroup {
  pid: number;
  name: string;
  threads: { tid: number; priority: number; name: string }[];
}

/**
 * process  tid      prio    name (all IDs are in hex)
 * 00000038 services.exe
 * \t0000003c    0
 * \t00000040    0     wine_rpcrt4_server
 */
export function parseInfoThread(text: string): WindowsThreadGroup[] {
  const groups: WindowsThreadGroup[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+$/, '');
    const proc = /^([0-9a-f]{8}) (.+)$/.exec(line);
    if (proc) {
      groups.push({ pid: Number.parseInt(proc[1] as string, 16), name: proc[2] as string, threads: [] });
      continue;
    }
    const thread = /^\t([0-9a-f]{8}) +(-?\d+)(?: +(.*))?$/.exec(line);
    const group = groups[groups.length - 1];
    if (thread && group) {
      group.threads.push({
        tid: Number.parseInt(thread[1] as string, 16),
        priority: Number(thread[2]),
        name: thread[3] ?? '',
      });
    }
  }
  return groups;
}

export interface WindowsModule {
  kind: string;
  start: bigint;
  end: bigint;
  /** winedbg's word for its symbols: Deferred, Dwarf-4, PDB, Export… */
  debugInfo: string;
  name: string;
}

/**
 * Module\tAddress\t\t\t\t\tDebug info\tName (12 modules)
 * PE\t000000007b000000-000000007b5e5000\tDeferred        kernelbase
 * ELF\t00007fe045aec000-00007fe045bb0000\tDeferred        ntdll.so
 */
export function parseInfoShare(text: string): WindowsModule[] {
  const found: WindowsModule[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(?:\\-)?([A-Z][A-Za-z]*)\t([0-9a-f]+)-([0-9a-f]+)\t(\S+)\s+(.+?)\s*$/.exec(line);
    if (!m) continue;
    found.push({
      kind: m[1] as string,
      start: BigInt(`0x${m[2]}`),
      end: BigInt(`0x${m[3]}`),
      debugInfo: m[4] as string,
      name: m[5] as string,
    });
  }
  return found;
}

export interface WinedbgException {
  /** Stopped at the first chance (before the program's handlers) or unhandled. */
  firstChance: boolean;
  /** winedbg's words: "page fault on write access to 0x0000000000000000", "divide by zero"… */
  description: string;
  access?: 'read' | 'write' | 'execute';
  address?: bigint;
  bits?: number;
  pc?: bigint;
}

/** "Unhandled exception: page fault on write access to 0x0000000000000000 in 64-bit code (0x00000140001596)." */
export function parseExceptionLine(text: string): WinedbgException | undefined {
  for (const line of text.split('\n')) {
    const m =
      /^(First chance exception|Unhandled exception): (.+?)(?: in (\d+)-bit code \(0x([0-9a-f]+)\))?\.?\s*$/.exec(line);
    if (!m) continue;
    const description = m[2] as string;
    const found: WinedbgException = { firstChance: m[1] === 'First chance exception', description };
    if (m[3]) found.bits = Number(m[3]);
    if (m[4]) found.pc = BigInt(`0x${m[4]}`);
    const fault = /^page fault on (read|write|execute) access to 0x([0-9a-f]+)$/.exec(description);
    if (fault) {
      found.access = fault[1] as 'read' | 'write' | 'execute';
      found.address = BigInt(`0x${fault[2]}`);
    }
    return found;
  }
  return undefined;
}
