// Breakpoint placement for Windows programs through winedbg's proxy, and the hidden breakpoint on
// the C runtime's abort().
//
// Function breakpoints (measured, GDB 13 on mingw gcc 12 code): GDB's amd64-windows prologue
// analysis gives up on some functions (`scale`, which takes a struct by value, stopped on its
// opening line before the arguments were stored: by=3.95e-323), and mingw's `main` starts with a
// call to __main that the line table gives to the opening line too. So a function's breakpoint
// goes where the line table says its body starts: past the rows of its opening line. And `main`
// also names Wine's own ELF loader (wine64's main, 2 locations): only the program's PE images
// count.
//
// abort(): mingw's assert() (Wine's msvcrt _assert) prints its message and then calls
// raise(SIGABRT), and so does abort(); with no handler, raise ends the program with exit code 3
// and no exception (measured: no stop, "exited with code 03"). A breakpoint on the C runtime's
// raise, taken only for SIGABRT (22, in rcx at the entry: the Windows x64 first argument), turns
// that into the SIGABRT stop a Linux program gives, after the message was printed, so the crash
// view shows it with the stack that led there. It is the backend's own: not listed, not reported.

import type { Library } from '../../model/model.js';
import type { GdbBackend } from '../gdb/gdbBackend.js';

const ROW =
  /^Line (\d+) of "[^"\n]*"\s+starts at address (0x[0-9a-f]+) <([^>+\n]*)(?:\+\d+)?> and ends at (0x[0-9a-f]+)/;

async function infoLine(gdb: GdbBackend, what: string, signal?: AbortSignal): Promise<string> {
  try {
    return (
      await gdb.cliText(`info line ${what}`, { captureConsole: true, timeoutMs: 10_000, ...(signal ? { signal } : {}) })
    ).console;
  } catch {
    return '';
  }
}

function inImages(address: bigint, images: readonly Library[]): boolean {
  return images.some((l) => l.ranges.some((r) => address >= BigInt(r.from) && address < BigInt(r.to)));
}

/** The program's PE images (the .exe and the DLLs), not Wine's ELF side. */
async function peImages(gdb: GdbBackend, signal?: AbortSignal): Promise<Library[]> {
  return (await gdb.libraries(signal).catch(() => [])).filter((l) => /\.(exe|dll)$/i.test(l.path));
}

/**
 * Where function `name`'s body starts (hex), in the program's PE images; undefined when GDB knows
 * no such function or several (then GDB's own resolution stands).
 */
export async function functionStart(gdb: GdbBackend, name: string, signal?: AbortSignal): Promise<string | undefined> {
  const said = await infoLine(gdb, name, signal);
  const rows = said
    .split('\n')
    .map((l) => ROW.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  if (rows.length === 1) {
    const first = rows[0] as RegExpExecArray;
    const opening = first[1];
    let end = first[4] as string;
    // Past every row of the opening line that still belongs to the function.
    for (let i = 0; i < 4; i++) {
      const next = ROW.exec((await infoLine(gdb, `*${end}`, signal)).split('\n')[0] ?? '');
      if (!next || next[1] !== opening || next[3] !== first[3]) break;
      end = next[4] as string;
    }
    return end;
  }
  if (rows.length > 1) return undefined;
  // No line information (no debug info): the function's own address, when one lies in a PE image.
  const bare = [...said.matchAll(/No line number information available for address (0x[0-9a-f]+) </g)].map((m) =>
    BigInt(m[1] as string),
  );
  if (bare.length === 0) return undefined;
  const images = await peImages(gdb, signal);
  const inImage = bare.filter((a) => inImages(a, images));
  return inImage.length === 1 ? `0x${(inImage[0] as bigint).toString(16)}` : undefined;
}

/** msvcrt's SIGABRT. */
const SIGABRT = 22;

/**
 * Breakpoints on raise(SIGABRT) in the C runtime DLLs the program loaded (msvcrt.dll,
 * ucrtbase.dll); their numbers, or none when the runtime has no raise symbol.
 */
export async function catchAbort(gdb: GdbBackend, signal?: AbortSignal): Promise<string[]> {
  const said = await infoLine(gdb, 'raise', signal);
  const addresses = [...said.matchAll(/(?:starts at address|available for address) (0x[0-9a-f]+) <raise>/g)].map((m) =>
    BigInt(m[1] as string),
  );
  const runtimes = (await peImages(gdb, signal)).filter((l) =>
    /(^|[\\/])(msvcrt|ucrtbase|msvcr\d+)\.dll$/i.test(l.path),
  );
  const numbers: string[] = [];
  for (const address of addresses.filter((a) => inImages(a, runtimes))) {
    const set = await gdb.insertBreakpoint(
      { kind: 'breakpoint', location: { address: `0x${address.toString(16)}` }, condition: `$rcx == ${SIGABRT}` },
      signal,
    );
    numbers.push(set.breakpoint.number);
  }
  return numbers;
}
