// The environment a debugger and its program start with: an allowlist, not the server's own.
// An MCP client launches the server with the agent's environment (API keys, tokens, cloud
// credentials); the program under debug is untrusted and must not see them.

const ALLOWED = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'TERM', 'TZ', 'TMPDIR']);

/**
 * The locale categories of POSIX and glibc (locale.h), and LC_ALL. Only these: a prefix match
 * would pass any LC_-named variable, and with it whatever an operator's shell keeps there.
 */
export const LOCALE_VARIABLES: ReadonlySet<string> = new Set([
  'LC_ALL',
  'LC_CTYPE',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_COLLATE',
  'LC_MONETARY',
  'LC_MESSAGES',
  'LC_PAPER',
  'LC_NAME',
  'LC_ADDRESS',
  'LC_TELEPHONE',
  'LC_MEASUREMENT',
  'LC_IDENTIFICATION',
]);

export function isAllowedByDefault(name: string): boolean {
  return ALLOWED.has(name) || LOCALE_VARIABLES.has(name);
}

/** The allowlisted part of `source`, plus the names in `passthrough`. */
export function childEnvironment(
  source: NodeJS.ProcessEnv,
  passthrough: readonly string[] = [],
): Record<string, string> {
  const extra = new Set(passthrough);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (isAllowedByDefault(name) || extra.has(name)) env[name] = value;
  }
  env['PATH'] ??= '/usr/local/bin:/usr/bin:/bin';
  return env;
}
