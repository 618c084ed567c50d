// How program arguments reach the program literally.
//
// With `startup-with-shell off`, GDB 13 splits the argument string on white space and nothing
// else (nat/fork-inferior.c, breakup_args): `$`, `;`, `*` and quotes already pass untouched, but an
// argument containing a space, or an empty one, cannot be expressed. For those runs we switch to
// `startup-with-shell on` with SHELL=/bin/sh (set when GDB is spawned) and quote every argument
// in single quotes, inside which POSIX sh interprets nothing. /bin/sh -c reads no start-up file.

export interface ArgumentPlan {
  /** Whether this run needs a shell to carry the arguments. */
  shell: boolean;
  /** The text for `-exec-arguments` (raw: GDB does not unquote it). */
  text: string;
}

const NEEDS_SHELL = /[\s]/;

export function planArguments(args: readonly string[]): ArgumentPlan {
  const shell = args.some((a) => a.length === 0 || NEEDS_SHELL.test(a));
  if (!shell) return { shell: false, text: args.join(' ') };
  return { shell: true, text: args.map(shellQuote).join(' ') };
}

/** POSIX single-quoting: 'it'\''s' for it's. */
export function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", "'\\''")}'`;
}
