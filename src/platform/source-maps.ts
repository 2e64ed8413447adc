// Preloaded by the worker (`node --import ./.build/dist/source-maps.js`, package.json start:worker): stack traces name
// the project's TypeScript lines through the bundle's own source map, as `--enable-source-maps` would, but without its
// two other costs: the maps of packages in node_modules (parsed and kept in memory) and a scan of every piece of code
// compiled at run time (the workflow sandbox compiles a function for each promise it tracks). docs/operations.md
// "Production build and memory".
import { setSourceMapsSupport } from 'node:module';

setSourceMapsSupport(true, { nodeModules: false, generatedCode: false });
