// Types of scripts/buildFixtures.mjs, for the TypeScript that imports it (test/helpers/globalSetup.ts).

/** One program to build: `sources` relative to where the compiler runs (`cwd`, default `.`). */
export interface FixtureEntry {
  /** The path under the build directory (may name a subdirectory). */
  output: string;
  compiler: string;
  sources: string[];
  /** Where the compiler runs, relative to the source directory. */
  cwd?: string;
  flags?: string[];
  libs?: string[];
  /** Built only where the compiler is installed. */
  optional?: boolean;
}

export interface BuildResult {
  built: string[];
  current: string[];
  skipped: { output: string; reason: string }[];
}

export interface BuildOptions {
  sourceDir?: string;
  outDir?: string;
  entries?: FixtureEntry[];
  jobs?: number;
}

export const fixtureSourceDir: string;
export const fixtureBuildDir: string;
export const CFLAGS: string[];
export const RULES: Record<string, { compiler: string; flags: string[]; libs: string[] }>;
export const EXTRA_FIXTURES: FixtureEntry[];
export function fixtureEntries(sourceDir?: string, extra?: FixtureEntry[]): FixtureEntry[];
export function fixtureKey(entry: FixtureEntry, sourceDir?: string): Promise<string | undefined>;
export function buildFixtures(options?: BuildOptions): Promise<BuildResult>;
