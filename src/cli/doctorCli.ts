// `dbg-mcp doctor`: the machine's capabilities as a table (or JSON), exit 1 when gdb itself is unusable.
import { runDoctor } from '../backends/doctor.js';
import type { ServerConfig } from '../server/config.js';

export async function runDoctorCli(config: ServerConfig, json: boolean): Promise<number> {
  const checks = await runDoctor({ gdbPath: config.gdbPath, passthroughEnv: config.passthroughEnv });
  if (json) {
    process.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
  } else {
    const width = Math.max(...checks.map((c) => c.name.length));
    for (const c of checks) {
      process.stdout.write(`${c.ok ? 'ok  ' : 'no  '} ${c.name.padEnd(width)}  ${c.detail}\n`);
      if (!c.ok && c.fix) process.stdout.write(`     ${' '.repeat(width)}  fix: ${c.fix}\n`);
    }
  }
  return checks.find((c) => c.name === 'gdb')?.ok ? 0 : 1;
}
