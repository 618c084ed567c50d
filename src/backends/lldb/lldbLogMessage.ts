// A printf format (GDB's dprintf) as an lldb-dap log message. lldb-dap reads `{expr}` as an
// expression to print and C escapes in the text between (measured on 22.1.8, and so its source
// reads: braces are matched before escapes, so a literal brace cannot be written).

import { DebuggerError } from '../../util/errors.js';

/**
 * A printf format and its arguments as an lldb-dap log message: each conversion (`%d`, `%08lx`)
 * becomes `{argument}` (LLDB prints the value in its own format), `%%` a percent sign. C escapes
 * stay: lldb-dap reads them as C does.
 */
export function logMessage(format: string, args: readonly string[]): string {
  if (/[{}]/.test(format) || args.some((a) => /[{}]/.test(a))) {
    throw new DebuggerError(
      'invalid_argument',
      'format: the lldb backend cannot print braces in a logpoint (lldb-dap reads {…} as an expression)',
      { fields: ['format'] },
    );
  }
  if (/(^|[^\\])(\\\\)*\\$/.test(format)) {
    throw new DebuggerError('invalid_argument', 'format: ends with a lone backslash', { fields: ['format'] });
  }
  let used = 0;
  const text = format.replace(
    /%(%|[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[diouxXeEfFgGcspaA])/g,
    (whole, body: string) => {
      if (body === '%') return '%';
      const arg = args[used++];
      if (arg === undefined) {
        throw new DebuggerError('invalid_argument', `format: ${whole} has no argument in format_args`, {
          fields: ['format_args'],
        });
      }
      return `{${arg}}`;
    },
  );
  if (used < args.length) {
    throw new DebuggerError('invalid_argument', `format_args: ${args.length - used} more than the format prints`, {
      fields: ['format_args'],
    });
  }
  return text;
}
