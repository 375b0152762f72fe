#!/usr/bin/env node
// `got` (`npx got`, `npm link`): the compiled CLI of src/cli/main.ts.
import { runCompiled } from './compiled.js';

await runCompiled('cli/main.js', 'got');
