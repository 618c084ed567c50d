#!/usr/bin/env node
// The dbg-mcp command: serve (default), doctor, demo, --help, --version. stdout belongs to MCP
// when serving; everything else this process says goes to stderr as JSON lines.

import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { closeBackendServices } from './backends/registry.js';
import { helpText, OptionError, parseCommandLine } from './cli/options.js';
import type { ServerConfig } from './server/config.js';
import { type CreatedServer, createServer, toolSchemaHash } from './server/createServer.js';
import { servesNetwork } from './transport/transportConfig.js';
import { DebuggerError } from './util/errors.js';
import { log, setLogLevel } from './util/log.js';
import { sourceCommit } from './util/sourceCommit.js';
import { packageRoot, packageVersion } from './util/version.js';

function fail(message: string): never {
  process.stderr.write(`dbg-mcp: ${message}\n`);
  process.exit(2);
}

function checkRoots(config: ServerConfig): void {
  config.roots = config.roots.map((r) => resolve(r));
  for (const r of config.roots) {
    if (!existsSync(r) || !statSync(r).isDirectory())
      fail(`workspace root ${r} is not a directory (--root / DBG_MCP_ROOT)`);
  }
}

async function serve(config: ServerConfig): Promise<void> {
  const servers: CreatedServer[] = [];
  const handle = serveStdio(
    () => {
      const created = createServer(config);
      servers.push(created);
      return created.server;
    },
    { onerror: (error) => log('warn', 'MCP transport error', { error: error.message }) },
  );
  log('info', 'dbg-mcp serving on stdio', {
    version: packageVersion(),
    config: { ...config, passthroughEnv: config.passthroughEnv.join(',') },
  });
  let stopping = false;
  const shutdown = async (why: string, code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log('info', 'shutting down', { why });
    // Whatever happens, be gone within 3 s.
    setTimeout(() => process.exit(code), 2500).unref();
    await Promise.allSettled(servers.map((s) => s.shutdown()));
    // After the sessions: what backends keep for the whole server (winedbg's Wine prefix).
    await closeBackendServices().catch((e: unknown) =>
      log('warn', 'backend services did not close', { error: (e as Error).message }),
    );
    await handle.close().catch(() => {});
    process.exit(code);
  };
  process.stdin.on('end', () => void shutdown('stdin closed', 0));
  process.stdin.on('close', () => void shutdown('stdin closed', 0));
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
  process.on('SIGINT', () => void shutdown('SIGINT', 0));
  process.on('SIGHUP', () => void shutdown('SIGHUP', 0));
  process.on('uncaughtException', (error) => {
    log('error', 'uncaught exception', { error: error.message, stack: error.stack });
    void shutdown('uncaught exception', 1);
  });
  process.on('unhandledRejection', (reason) => {
    log('error', 'unhandled rejection', { error: String(reason), stack: (reason as Error)?.stack });
  });
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(process.argv.slice(2), process.env);
  } catch (e) {
    if (e instanceof OptionError) fail(e.message);
    throw e;
  }
  const { command, config } = parsed;
  switch (command) {
    case 'help':
      process.stdout.write(`${helpText(packageVersion())}\n`);
      return;
    case 'version': {
      // The commit and the tools' contract, not only the package's number: two copies of 0.1.0
      // can differ, and a client can tell whether the tools it knows changed.
      const commit = sourceCommit(packageRoot()) ?? 'unknown (not a git checkout)';
      process.stdout.write(`dbg-mcp ${packageVersion()}\ncommit ${commit}\ntool schemas ${toolSchemaHash()}\n`);
      return;
    }
    case 'doctor': {
      setLogLevel(config.logLevel);
      const { runDoctorCli } = await import('./cli/doctorCli.js');
      process.exitCode = await runDoctorCli(config, parsed.json);
      return;
    }
    case 'share': {
      const { runShareCli } = await import('./cli/share.js');
      process.exitCode = await runShareCli(parsed.rest ?? []);
      return;
    }
    case 'demo': {
      setLogLevel(config.logLevel);
      const { runDemo } = await import('./cli/demo.js');
      process.exitCode = await runDemo();
      return;
    }
    case 'serve':
      setLogLevel(config.logLevel);
      checkRoots(config);
      if (!servesNetwork(parsed.transport)) {
        await serve(config);
        return;
      }
      // Loaded only here: stdio start-up pays nothing for the HTTP stack.
      try {
        const { serveNetwork } = await import('./transport/serveNetwork.js');
        await serveNetwork(config, parsed.transport);
      } catch (e) {
        if (e instanceof DebuggerError) fail(e.message);
        throw e;
      }
      return;
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`dbg-mcp: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
});
