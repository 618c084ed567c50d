// A location as the agent writes it (`file.c:42`, `main`, `*0x401000`), turned into data for the
// backend. What fits none of the three forms goes as the backend's own location text.

import type { Location } from '../backends/debuggerBackend.js';

const LINE = /^([^\s:*][^:]*):(\d{1,9})$/;
/** C and C++ names, qualified ones (ns::f, Class::~Class) and operators included. */
const FUNCTION = /^(?:[A-Za-z_~][\w~]*::)*(?:operator\W{1,3}|[A-Za-z_~][\w~]*)$/;

export function parseLocation(text: string): Location {
  const trimmed = text.trim();
  if (trimmed.startsWith('*') && trimmed.length > 1) return { address: trimmed.slice(1).trim() };
  const line = LINE.exec(trimmed);
  if (line?.[1] !== undefined && line[2] !== undefined) return { file: line[1], line: Number(line[2]) };
  if (FUNCTION.test(trimmed)) return { function: trimmed };
  return { spec: text };
}
