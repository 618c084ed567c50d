// Types of scripts/buildFixtures.mjs, for the TypeScript that imports it (test/helpers/globalSetup.ts).

/** One program to build: `sources` relative to the source directory, where the compiler runs. */
export interface FixtureEntry {
  output: string;
  compiler: string;
  sources: string[];
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
export function fixtureEntries(sourceDir?: string): FixtureEntry[];
export function fixtureKey(entry: FixtureEntry, sourceDir?: string): Promise<string | undefined>;
export function buildFixtures(options?: BuildOptions): Promise<BuildResult>;
