// Times the oracle's exploration (real React 18), for comparison with recipe-drift's own.
//
//   node bench.mjs BUNDLE.js [--iterations N]
//
// Evaluates the bundle once, then explores each target N times (default 1) exactly as
// oracle.mjs does, and prints one JSON line per target:
//   {"name": "...", "states": 18, "seconds": 0.0421, "iterations": 5}
// where `seconds` is the median wall time (performance.now()) of one full exploration.
// An error prints {"error": "..."} and exits 1, as oracle.mjs does.

import { performance } from 'node:perf_hooks';
import { DEFAULT_MAX_STATES, annotate, explore, fail, loadTargets, silenceConsole } from './oracle.mjs';

async function main(argv) {
  let bundle;
  let iterations = 1;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--iterations') iterations = Number(argv[++i]);
    else if (bundle === undefined) bundle = argv[i];
    else throw new Error(`unexpected argument ${argv[i]}`);
  }
  if (bundle === undefined || !Number.isInteger(iterations) || iterations < 1) {
    throw new Error('usage: node bench.mjs BUNDLE.js [--iterations N]');
  }
  silenceConsole(); // React's dev warnings; results go to process.stdout

  for (const { name, element } of loadTargets(bundle)) {
    const times = [];
    let states = 0;
    for (let i = 0; i < iterations; i++) {
      const start = performance.now();
      try {
        states = (await explore(element, DEFAULT_MAX_STATES)).length;
      } catch (e) {
        throw annotate(e, `target ${JSON.stringify(name)}`);
      }
      times.push((performance.now() - start) / 1000);
    }
    times.sort((a, b) => a - b);
    const seconds = times[Math.floor(times.length / 2)];
    process.stdout.write(JSON.stringify({ name, states, seconds, iterations }) + '\n');
  }
}

main(process.argv.slice(2)).catch(fail);
