#!/usr/bin/env node
// `got-worker` (`npm run worker`): the compiled long-lived worker of worker/main.ts, configured by the environment.
import { runCompiled } from './compiled.js';

await runCompiled('worker/main.js', 'got-worker');
