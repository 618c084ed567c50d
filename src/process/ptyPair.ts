// A bare pseudo-terminal pair, nothing spawned on it: node-pty's open() hands over both ends. The
// share process (backends/gdbShare) gives the slave to a person's gdb (`new-ui mi3 <slave>`) and
// keeps the master; programTerminal.ts loads the same binding for the program's own terminal.

import { createRequire } from 'node:module';

export interface PtyPair {
  master: number;
  slave: number;
  /** The slave's path, e.g. /dev/pts/7. */
  pty: string;
}

interface PtyBinding {
  open(cols: number, rows: number): PtyPair;
}

let binding: PtyBinding | undefined;

export function openPtyPair(cols = 200, rows = 50): PtyPair {
  if (binding === undefined) {
    const require = createRequire(import.meta.url);
    const loader = require('@lydell/node-pty/requireBinary.js') as { requireBinary(file: string): PtyBinding };
    binding = loader.requireBinary('pty.node');
  }
  return binding.open(cols, rows);
}
