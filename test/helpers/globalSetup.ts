// Builds the fixture programs once per test run, through the one build the bench uses too
// (scripts/buildFixtures.mjs): gcc only, no make needed on a fresh machine, and an output is
// rebuilt when what decides its bytes changed (sources, flags, compiler, directory), not by date.
import { buildFixtures } from '../../scripts/buildFixtures.mjs';

export default async function setup(): Promise<void> {
  const { built, skipped } = await buildFixtures();
  if (built.length > 0) process.stderr.write(`fixtures built: ${built.join(', ')}\n`);
  // The tests that need a skipped program say what to install; this says it once up front.
  for (const s of skipped) process.stderr.write(`fixture ${s.output} not built: ${s.reason}\n`);
}
