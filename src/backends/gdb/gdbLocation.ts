// Locations as GDB reads them (linespecs): `file.c:42`, `function`, `*0x401000`, or the text of a
// `spec` as the user wrote it in GDB's own language.

import { assertSingleLine } from '../../protocols/mi/miCommand.js';
import { DebuggerError } from '../../util/errors.js';
import type { Location } from '../debuggerBackend.js';

export function gdbLocation(location: Location): string {
  let text: string;
  if ('spec' in location) text = location.spec;
  else if ('function' in location) text = location.function;
  else if ('address' in location) text = `*${location.address}`;
  else {
    // A linespec ends a file name at white space or a comma; such a name goes explicit.
    text = /[\s,]/.test(location.file)
      ? `-source ${JSON.stringify(location.file)} -line ${location.line}`
      : `${location.file}:${location.line}`;
  }
  assertSingleLine(text, 'location');
  if (text.trim() === '') throw new DebuggerError('invalid_argument', 'location: empty');
  return text;
}
