// `dbg-mcp doctor`: the machine's capabilities as a table (or JSON), exit 1 when gdb itself is unusable.
import { runDoctor } from '../backends/registry.js';
import { backendPaths, type ServerConfig } from '../server/config.js';

/** The doctor's report goes to stdout: this command does not serve MCP. */
function print(text: string): void {
  process.stdout.write(text); // stdout-ok: doctor prints its report
}

export async function runDoctorCli(config: ServerConfig, json: boolean): Promise<number> {
  const checks = await runDoctor({ paths: backendPaths(config), passthroughEnv: config.passthroughEnv });
  if (json) {
    print(`${JSON.stringify(checks, null, 2)}\n`);
  } else {
    const width = Math.max(...checks.map((c) => c.name.length));
    for (const c of checks) {
      print(`${c.ok ? 'ok  ' : 'no  '} ${c.name.padEnd(width)}  ${c.detail}\n`);
      if (!c.ok && c.fix) print(`     ${' '.repeat(width)}  fix: ${c.fix}\n`);
    }
  }
  return checks.find((c) => c.name === 'gdb')?.ok ? 0 : 1;
}
