#!/usr/bin/env node
// `mailvet` (package.json bin; `npx mailvet ...` in the checkout): the CLI of cli/main.ts, run through
// tsx since the project has no build step.
require('tsx/cjs');
require('../cli/main.ts').runAsProgram();
